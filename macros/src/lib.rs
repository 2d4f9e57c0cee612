//! Procedural macros of coop. Use them through the `coop` crate:
//! `coop::kernel`, `coop::Shuffle`.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod device_copy;
mod fields;
mod kernel;
mod shuffle;
mod tile_sizes;

/// Turns a function into a kernel: a PTX `.entry` point on the GPU, and a
/// typed descriptor (a unit struct of the same name implementing
/// `coop::Kernel`) on the host.
///
/// Parameters may be the handles `ThreadBlock` and `Grid` (made on the
/// device, no host argument), read-only buffers `&[T]`, writable buffers
/// `Out<T>`, and primitive numbers. See the `coop` crate for examples.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `coop::DeviceCopy` for a `#[repr(C)]` struct whose fields
/// are all `DeviceCopy` and that has no padding bytes (and, on the host,
/// cudarc's `DeviceRepr` and `ValidAsZeroBits`), checking all three when
/// the crate is compiled.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    device_copy::expand(item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `coop::Shuffle` for a struct whose fields are all `Shuffle`,
/// that has no padding bytes and is at most 32 bytes, checking all three
/// when the crate is compiled.
#[proc_macro_derive(Shuffle)]
pub fn derive_shuffle(item: TokenStream) -> TokenStream {
    shuffle::expand(item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Generates the tile-size rules of `coop`: `ValidTileSize` for each listed
/// size and `SubTileOf` for each pair. Used once, inside `coop`.
#[doc(hidden)]
#[proc_macro]
pub fn tile_sizes(input: TokenStream) -> TokenStream {
    tile_sizes::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
