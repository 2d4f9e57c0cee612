//! What the derives share: the field types of a non-generic struct, or an
//! error that says what the derive supports.

use syn::{Data, DeriveInput, Fields, Type};

/// The types of `input`'s fields, in order, when it is a struct without
/// generic parameters; otherwise an error naming `derive`. `enum_reason`
/// says why the derive refuses enums and unions.
pub fn struct_fields<'a>(
    input: &'a DeriveInput,
    derive: &str,
    enum_reason: &str,
) -> syn::Result<Vec<&'a Type>> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!(
                "#[derive({derive})] supports structs without generic parameters; \
                 for a generic type, implement `coop::{derive}` by hand"
            ),
        ));
    }
    match &input.data {
        Data::Struct(s) => Ok(match &s.fields {
            Fields::Named(f) => f.named.iter().map(|f| &f.ty).collect(),
            Fields::Unnamed(f) => f.unnamed.iter().map(|f| &f.ty).collect(),
            Fields::Unit => Vec::new(),
        }),
        _ => Err(syn::Error::new_spanned(
            &input.ident,
            format!("#[derive({derive})] supports structs only: {enum_reason}"),
        )),
    }
}
