use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Shuffle)] supports structs without generic parameters; \
             for a generic type, implement `coop::Shuffle` by hand",
        ));
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => f.named.iter().map(|f| &f.ty).collect::<Vec<_>>(),
            Fields::Unnamed(f) => f.unnamed.iter().map(|f| &f.ty).collect(),
            Fields::Unit => Vec::new(),
        },
        _ => {
            return Err(syn::Error::new_spanned(
                name,
                "#[derive(Shuffle)] supports structs only: an enum's unused bytes \
                 are padding, which a shuffle cannot move",
            ))
        }
    };
    let too_big = format!(
        "`{name}` is larger than 32 bytes: a shuffle moves at most 32 bytes \
         (8 words); split the value or shuffle its fields one by one"
    );
    let padded = format!(
        "`{name}` has padding bytes, which a shuffle cannot move: reorder its \
         fields from largest to smallest alignment or add explicit fields \
         to fill the gaps"
    );
    Ok(quote! {
        const _: () = {
            use ::coop::__private::core::mem::size_of;
            fn __every_field_is_shuffle()
            where
                #(#fields: ::coop::Shuffle,)*
            {}
            assert!(size_of::<#name>() <= 32, #too_big);
            assert!(size_of::<#name>() == 0 #(+ size_of::<#fields>())*, #padded);

            unsafe impl ::coop::Shuffle for #name {
                const WORDS: usize = (size_of::<#name>() + 3) / 4;
                #[inline(always)]
                fn map_words(self, f: impl FnMut(u32) -> u32) -> Self {
                    // SAFETY: checked above: no padding, and WORDS words hold
                    // the value; words come from another lane's `#name`.
                    unsafe {
                        ::coop::__private::words_of::<#name, { (size_of::<#name>() + 3) / 4 }>(self, f)
                    }
                }
            }
        };
    })
}
