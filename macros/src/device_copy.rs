//! `#[derive(DeviceCopy)]`: a `#[repr(C)]` struct of `DeviceCopy` fields
//! without padding, which moves between host and GPU as its bytes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::DeriveInput;

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    let fields = crate::fields::struct_fields(
        &input,
        "DeviceCopy",
        "an enum or a union can hold byte patterns that are not valid values; copy a `u32` code instead",
    )?;
    let c_layout = input.attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_nested_meta(|m| {
                if m.path.is_ident("C") || m.path.is_ident("transparent") {
                    Err(m.error("found"))
                } else {
                    Ok(())
                }
            })
            .is_err()
    });
    if !c_layout {
        return Err(syn::Error::new_spanned(
            name,
            format!(
                "`{name}` needs `#[repr(C)]` to derive DeviceCopy: the GPU code and the \
                 host must agree on where each field lies, and Rust's default layout \
                 may reorder fields"
            ),
        ));
    }
    let padded = format!(
        "`{name}` has padding bytes, which would carry uninitialised memory to the GPU \
         and back (its size is larger than the sum of its fields' sizes): order the \
         fields from the largest alignment down, widen the small ones, or fill the gaps \
         with explicit fields (e.g. `_pad: [u8; 3]`)"
    );
    let field_checks = fields.iter().map(|ty| {
        let span = ty.span();
        quote_spanned! {span=> __field_is_device_copy::<#ty>(); }
    });
    Ok(quote! {
        const _: () = {
            use ::coop::__private::core::mem::size_of;
            fn __field_is_device_copy<T: ::coop::DeviceCopy>() {}
            #[allow(dead_code)]
            fn __every_field_is_device_copy() {
                #(#field_checks)*
            }
            assert!(size_of::<#name>() == 0 #(+ size_of::<#fields>())*, #padded);

            // SAFETY: `#[repr(C)]`, no padding (checked above), and every
            // field `DeviceCopy`: any bytes the GPU writes are a valid value.
            unsafe impl ::coop::DeviceCopy for #name {}
            // SAFETY: as above; cudarc copies the value's bytes.
            #[cfg(not(target_arch = "nvptx64"))]
            unsafe impl ::coop::__private::DeviceRepr for #name {}
            // SAFETY: every field is `DeviceCopy`, so all-zero bytes are a
            // valid value of each, and there is no padding.
            #[cfg(not(target_arch = "nvptx64"))]
            unsafe impl ::coop::__private::ValidAsZeroBits for #name {}
        };
    })
}
