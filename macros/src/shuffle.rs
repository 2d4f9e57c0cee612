//! `#[derive(Shuffle)]`: a struct of `Shuffle` fields without padding,
//! moved as its fields' words.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::DeriveInput;

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    let fields = crate::fields::struct_fields(
        &input,
        "Shuffle",
        "an enum's unused bytes are padding, which a shuffle cannot move",
    )?;
    let too_big = format!(
        "`{name}` is larger than 32 bytes: a shuffle moves at most 32 bytes \
         (8 words); split the value or shuffle its fields one by one"
    );
    let padded = format!(
        "`{name}` has padding bytes, which a shuffle cannot move (its size is \
         larger than the sum of its fields' sizes): widen the small fields \
         (e.g. `u8` to `u32`) or fill the gaps with explicit fields \
         (e.g. `_pad: [u8; 3]`)"
    );
    // One call per field, spanned at the field's type, so that a field that
    // is not `Shuffle` is reported there and not at the derive.
    let field_checks = fields.iter().map(|ty| {
        let span = ty.span();
        quote_spanned! {span=> __field_is_shuffle::<#ty>(); }
    });
    Ok(quote! {
        const _: () = {
            use ::coop::__private::core::mem::size_of;
            fn __field_is_shuffle<T: ::coop::Shuffle>() {}
            #[allow(dead_code)]
            fn __every_field_is_shuffle() {
                #(#field_checks)*
            }
            assert!(size_of::<#name>() <= 32, #too_big);
            assert!(size_of::<#name>() == 0 #(+ size_of::<#fields>())*, #padded);

            unsafe impl ::coop::Shuffle for #name {
                const WORDS: usize = size_of::<#name>().div_ceil(4);
                #[inline(always)]
                fn map_words(self, f: impl FnMut(u32) -> u32) -> Self {
                    // SAFETY: checked above: no padding, and WORDS words hold
                    // the value; words come from another lane's `#name`.
                    unsafe {
                        ::coop::__private::words_of::<#name, { size_of::<#name>().div_ceil(4) }>(self, f)
                    }
                }
            }
        };
    })
}
