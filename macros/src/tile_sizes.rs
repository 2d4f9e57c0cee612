//! `tile_sizes!`: generates the tile-size rules (`ValidTileSize`,
//! `SubTileOf`) as trait impls for the sizes the hardware allows.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{LitInt, Token};

/// `tile_sizes!(1, 2, 4, 8, 16, 32)`: every size must be a power of two of
/// at most 32, the hardware's warp width.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let lits = Punctuated::<LitInt, Token![,]>::parse_terminated.parse2(input)?;
    let mut sizes = Vec::new();
    for lit in &lits {
        let n: u32 = lit.base10_parse()?;
        if n == 0 || !n.is_power_of_two() || n > 32 {
            return Err(syn::Error::new(
                lit.span(),
                format!("{n} is not a tile size: tiles are powers of two from 1 to 32"),
            ));
        }
        sizes.push(n);
    }
    let mut out = TokenStream::new();
    for &n in &sizes {
        let log2 = n.trailing_zeros();
        out.extend(quote! {
            impl sealed::Sealed for TileSize<#n> {}
            impl ValidTileSize for TileSize<#n> {
                const LOG2: u32 = #log2;
            }
        });
        for &m in sizes.iter().filter(|&&m| m > n) {
            out.extend(quote! {
                impl SubTileOf<TileSize<#m>> for TileSize<#n> {}
            });
        }
    }
    Ok(out)
}
