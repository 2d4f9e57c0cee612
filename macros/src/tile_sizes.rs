//! `tile_sizes!`: generates the tile-size rules (`AnyTileSize`,
//! `ValidTileSize`, `MultiWarpTileSize`, `SubTileOf`) as trait impls for the
//! sizes the hardware allows.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{LitInt, Token};

/// `tile_sizes!(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)`: every size
/// must be a power of two of at most 1024, a block's most threads. Sizes up
/// to 32 (the warp width) are warp tiles (`ValidTileSize`), larger ones
/// multi-warp tiles (`MultiWarpTileSize`, numbered from 0 for 64); every
/// size is a tile size (`AnyTileSize`) and a sub-tile of every larger one.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let lits = Punctuated::<LitInt, Token![,]>::parse_terminated.parse2(input)?;
    let mut sizes = Vec::new();
    for lit in &lits {
        let n: u32 = lit.base10_parse()?;
        if n == 0 || !n.is_power_of_two() || n > 1024 {
            return Err(syn::Error::new(
                lit.span(),
                format!("{n} is not a tile size: tiles are powers of two from 1 to 1024"),
            ));
        }
        sizes.push(n);
    }
    let mut out = TokenStream::new();
    for &n in &sizes {
        let log2 = n.trailing_zeros();
        out.extend(quote! {
            impl sealed::Sealed for TileSize<#n> {}
            impl AnyTileSize for TileSize<#n> {}
        });
        if n <= 32 {
            out.extend(quote! {
                impl ValidTileSize for TileSize<#n> {
                    const LOG2: u32 = #log2;
                }
            });
        } else {
            let index = log2 - 6;
            out.extend(quote! {
                impl MultiWarpTileSize for TileSize<#n> {
                    const INDEX: u32 = #index;
                }
            });
        }
        for &m in sizes.iter().filter(|&&m| m > n) {
            out.extend(quote! {
                impl SubTileOf<TileSize<#m>> for TileSize<#n> {}
            });
        }
    }
    Ok(out)
}
