//! `#[kernel]`: checks a kernel's signature and expands it to a PTX entry
//! point (on nvptx64) and a typed host descriptor (elsewhere), both calling
//! the user's body; static shared arrays through the target's
//! `coop_declare_static_shared!` and `coop_bind_static_shared!`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

/// A handle parameter, made on the device.
enum Handle {
    ThreadBlock,
    Grid,
    Cluster,
    /// Only in a `#[kernel(cooperative)]`.
    CooperativeGrid,
}

impl Handle {
    fn make(&self) -> TokenStream {
        match self {
            Handle::ThreadBlock => quote!(::coop::this_thread_block()),
            Handle::Grid => quote!(::coop::this_grid()),
            Handle::Cluster => quote!(::coop::this_cluster()),
            // SAFETY (of the expansion): the kernel is declared cooperative,
            // and coop launches it only cooperatively.
            Handle::CooperativeGrid => {
                quote!(unsafe { ::coop::CooperativeGrid::__in_cooperative_launch() })
            }
        }
    }
}

/// How one parameter reaches the kernel body.
enum Param {
    /// `ThreadBlock`, `Grid` or `CooperativeGrid`: made on the device, no
    /// host argument.
    Handle(Handle),
    /// `Shared<A>`: block-shared memory, declared in the PTX module (or
    /// the launch's dynamic shared memory for `Shared<[E]>`), no host
    /// argument.
    Shared {
        array: Box<Type>,
        dynamic: bool,
        /// The parameter's whole type (`Shared<A>`, `Pipeline<A>`).
        ty: Box<Type>,
    },
    /// Anything else: lowered through `coop::KernelParam`.
    Lowered(Box<Type>),
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let Options {
        cooperative,
        max_threads,
        min_blocks,
        max_registers,
        block,
    } = parse_options(attr)?;
    let func: ItemFn = syn::parse2(item)?;
    check_signature(&func)?;

    let name = &func.sig.ident;
    let name_str = name.to_string();
    let body_name = format_ident!("__coop_kernel_body_{}", name);
    let vis = &func.vis;
    let docs: Vec<_> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();

    let mut params = Vec::new();
    let mut names = Vec::new();
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else {
            unreachable!("check_signature rejects receivers")
        };
        if !matches!(&*pt.pat, Pat::Ident(_) | Pat::Wild(_)) {
            return Err(syn::Error::new_spanned(
                &pt.pat,
                "kernel parameters must be plain names (`x: u32`), not patterns",
            ));
        }
        if let Type::Reference(r) = &*pt.ty {
            if r.mutability.is_some() {
                return Err(syn::Error::new_spanned(
                    &pt.ty,
                    "a kernel parameter cannot be a `&mut` reference: every thread of the launch \
                     would hold the same mutable reference at once; take a writable buffer as \
                     `Out<T>` (or `InOut<T>`, the same type, for one the kernel also reads) and \
                     write elements with `out.write(index, value)`",
                ));
            }
        }
        names.push(match &*pt.pat {
            Pat::Ident(p) => p.ident.to_string(),
            _ => format!("_{}", names.len()),
        });
        let param = classify(&pt.ty);
        if let Param::Handle(Handle::CooperativeGrid) = param {
            if !cooperative {
                return Err(syn::Error::new_spanned(
                    &pt.ty,
                    format!(
                        "a `CooperativeGrid` needs a cooperative launch: declare the kernel \
                         `#[kernel(cooperative)]` (coop_host then launches it with every block \
                         on the GPU at once, which a grid sync needs, and refuses a grid too \
                         large for that); or take `{}: Grid` if the kernel does not sync its grid",
                        names.last().expect("pushed above")
                    ),
                ));
            }
        }
        params.push(param);
    }
    if cooperative
        && !params
            .iter()
            .any(|p| matches!(p, Param::Handle(Handle::CooperativeGrid)))
    {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "a `#[kernel(cooperative)]` takes its grid as a parameter: add `grid: CooperativeGrid` \
             (the handle whose `sync` waits for every block); a kernel that does not sync its grid \
             is an ordinary `#[kernel]`",
        ));
    }
    let dynamic: Vec<_> = func
        .sig
        .inputs
        .iter()
        .zip(&params)
        .filter(|(_, p)| matches!(p, Param::Shared { dynamic: true, .. }))
        .collect();
    if dynamic.len() > 1 {
        return Err(syn::Error::new_spanned(
            dynamic[1].0,
            "a kernel has one dynamic shared array: every `Shared<[E]>` parameter would bind the \
             same launch-sized memory; take one and split it",
        ));
    }

    // PTX entry point: each lowered parameter becomes two words (a
    // zero-sized word takes no PTX parameter).
    let mut abi_params = Vec::new();
    let mut call_args = Vec::new();
    let mut host_params = Vec::new();
    let mut word_pairs = Vec::new();
    let mut param_names: Vec<String> = Vec::new();
    let mut host_args = Vec::new();
    let mut shared_decls = Vec::new();
    let mut static_bytes = Vec::new();
    for (i, p) in params.iter().enumerate() {
        match p {
            Param::Handle(handle) => {
                let make = handle.make();
                call_args.push(make.clone());
                host_args.push(make);
            }
            Param::Shared { array, dynamic, ty } => {
                let param = &names[i];
                let span = array.span();
                let st = static_lifetimes(ty);
                let bind = quote_spanned! {span=> ::coop::shared::Shared::<#array> };
                if *dynamic {
                    call_args.push(quote! { unsafe { #bind::__bind_dynamic(#param) } });
                    host_args.push(quote! { unsafe { #bind::__bind_dynamic(#param) } });
                } else {
                    let symbol = format!("coop_shared_{name_str}_{param}");
                    let key = format!("{name_str}.{param}");
                    shared_decls.push(quote_spanned! {span=>
                        ::coop::__private::coop_declare_static_shared!(#symbol, #st);
                    });
                    let bind = quote_spanned! {span=>
                        ::coop::__private::coop_bind_static_shared!(#symbol, #key, #param, #st)
                    };
                    call_args.push(bind.clone());
                    host_args.push(bind);
                    static_bytes.push(quote_spanned! {span=>
                        <#st as ::coop::shared::SharedParam>::BYTES
                            .next_multiple_of(<#st as ::coop::shared::SharedParam>::ALIGN)
                    });
                }
            }
            Param::Lowered(ty) => {
                let w0 = format_ident!("__coop_p{}_0", i);
                let w1 = format_ident!("__coop_p{}_1", i);
                let st = static_lifetimes(ty);
                let span = ty.span();
                abi_params.push(quote_spanned! {span=>
                    #w0: <#st as ::coop::KernelParam>::Word0,
                    #w1: <#st as ::coop::KernelParam>::Word1
                });
                let arg = quote_spanned! {span=>
                    <#ty as ::coop::KernelParam>::from_abi(#w0, #w1)
                };
                call_args.push(arg.clone());
                host_args.push(arg);
                host_params.push(quote_spanned! {span=>
                    <#st as ::coop::KernelParam>::Host
                });
                word_pairs.push(quote!((#w0, #w1)));
                param_names.push(names[i].clone());
            }
        }
    }

    let limit_message = format!(
        "kernel `{name_str}`: its shared-memory parameters (`Shared<[E; N]>`, `Pipeline<..>`) take more than \
         coop::shared::MAX_STATIC_SHARED_BYTES (48 KiB less the 1312 bytes kept for block \
         collectives) of static shared memory, which ptxas refuses (and with it every kernel \
         of the crate); take the large array as a dynamic `Shared<[E]>` and size it at launch \
         with `LaunchConfig::with_shared_memory`"
    );
    // The bounds reach the PTX as the name of an exported byte, which
    // coop_build reads, removes, and turns into the entry point's
    // `.maxntid`, `.minnctapersm` and `.maxnreg` (rustc has no attribute
    // that reaches them).
    let bounds_marker = if max_threads.is_some() || max_registers.is_some() || min_blocks.is_some()
    {
        let marker = format_ident!(
            "__coop_bounds_{}_{}_{}_{}",
            max_threads.unwrap_or(0),
            min_blocks.unwrap_or(0),
            max_registers.unwrap_or(0),
            name
        );
        exported_marker(&marker)
    } else {
        quote!()
    };
    // The block shape travels the same way, as `.reqntid`; the kernel
    // assumes it at its entry.
    let (block_marker, block_assumption) = match block {
        Some([x, y, z]) => {
            let marker = format_ident!("__coop_block_{}_{}_{}_{}", x, y, z, name);
            (
                exported_marker(&marker),
                quote!(::coop::__private::assume_block_shape(#x, #y, #z);),
            )
        }
        None => (quote!(), quote!()),
    };
    let block_t = match block {
        Some([x, y, z]) => quote!(::core::option::Option::Some(::coop::Dim3::new(#x, #y, #z))),
        None => quote!(::core::option::Option::None),
    };
    let max_threads = max_threads.or(block.map(|[x, y, z]| x * y * z));
    let option = |v: Option<u32>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let (max_threads_t, min_blocks_t, max_registers_t) = (
        option(max_threads),
        option(min_blocks),
        option(max_registers),
    );
    // The lines of the kernel's body, for the CPU backend: a collective
    // called there needs no look at the stack to say where it came from.
    let (open, close) = (
        func.block.brace_token.span.open(),
        func.block.brace_token.span.close(),
    );
    let body_file = quote_spanned! {open=> ::core::file!() };
    let body_first = quote_spanned! {open=> ::core::line!() };
    let body_last = quote_spanned! {close=> ::core::line!() };
    let mut body_fn = func.clone();
    body_fn.sig.ident = body_name.clone();
    body_fn.vis = syn::Visibility::Inherited;
    body_fn.attrs.retain(|a| !a.path().is_ident("doc"));

    Ok(quote! {
        #(#shared_decls)*

        const _: () = ::core::assert!(
            0 #(+ #static_bytes)* <= ::coop::shared::MAX_STATIC_SHARED_BYTES,
            #limit_message
        );

        #[doc(hidden)]
        #[inline(always)]
        #[allow(dead_code, non_snake_case, clippy::too_many_arguments)]
        #body_fn

        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[allow(improper_ctypes_definitions, non_snake_case, clippy::too_many_arguments)]
        #(#docs)*
        #vis unsafe extern "ptx-kernel" fn #name(#(#abi_params),*) {
            #block_assumption
            // SAFETY: the words are those coop_host passed for each
            // parameter's `Host` marker, checked against `Kernel::Params`.
            unsafe { #body_name(#(#call_args),*) }
        }

        #(#docs)*
        ///
        /// On the host this is the kernel's descriptor: pass it to
        /// `coop_host` to launch the kernel.
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        #bounds_marker
        #block_marker

        #[cfg(not(target_arch = "nvptx64"))]
        impl ::coop::Kernel for #name {
            const NAME: &'static str = #name_str;
            const STATIC_SHARED_BYTES: usize = 0 #(+ #static_bytes)*;
            type Params = (#(#host_params,)*);
            const PARAM_NAMES: &'static [&'static str] = &[#(#param_names),*];
            const COOPERATIVE: bool = #cooperative;
            const BODY_LINES: (&'static str, u32, u32) = (#body_file, #body_first, #body_last);
            const LAUNCH_BOUNDS: ::coop::LaunchBounds = ::coop::LaunchBounds {
                max_threads: #max_threads_t,
                min_blocks: #min_blocks_t,
                max_registers: #max_registers_t,
                block: #block_t,
            };

            #[allow(non_snake_case)]
            unsafe fn run_lane(
                words: <Self::Params as ::coop::kernel::params::ParamList>::Words,
            ) {
                let (#(#word_pairs,)*) = words;
                // SAFETY: the CPU backend passes the words of live host
                // buffers and values, matching `Params`.
                unsafe { #body_name(#(#host_args),*) }
            }
        }
    })
}

/// An exported byte named `marker` in the kernel crate's PTX, which
/// coop_build reads and removes (`launch_bounds`).
fn exported_marker(marker: &syn::Ident) -> TokenStream {
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[used]
        #[allow(non_upper_case_globals)]
        static #marker: u8 = 0;
    }
}

/// The arguments of `#[kernel(..)]`.
#[derive(Default)]
struct Options {
    cooperative: bool,
    max_threads: Option<u32>,
    min_blocks: Option<u32>,
    max_registers: Option<u32>,
    /// `block = (x, y, z)`: the one block shape.
    block: Option<[u32; 3]>,
}

/// Reads `block = x`, `(x, y)` or `(x, y, z)`: each extent a literal
/// within CUDA's limits (1024, 1024, 64), 1024 threads in all.
fn parse_block(value: &syn::Expr) -> syn::Result<[u32; 3]> {
    let help = "`block` takes the block's shape as literals, `block = 256`, `block = (32, 8)` \
                or `block = (8, 8, 4)`: x and y up to 1024, z up to 64, 1024 threads in all";
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    let extents: Vec<Option<u32>> = match value {
        syn::Expr::Tuple(t) => t.elems.iter().map(literal).collect(),
        syn::Expr::Paren(p) => vec![literal(&p.expr)],
        e => vec![literal(e)],
    };
    if extents.is_empty() || extents.len() > 3 || extents.iter().any(|e| e.is_none()) {
        return Err(syn::Error::new_spanned(value, help));
    }
    let mut shape = [1u32; 3];
    for (i, e) in extents.iter().enumerate() {
        shape[i] = e.unwrap_or(1);
    }
    let within = shape[0] >= 1
        && shape[1] >= 1
        && shape[2] >= 1
        && shape[0] <= 1024
        && shape[1] <= 1024
        && shape[2] <= 64
        && shape.iter().map(|&e| e as u64).product::<u64>() <= 1024;
    if !within {
        let threads: u64 = shape.iter().map(|&e| e as u64).product();
        return Err(syn::Error::new_spanned(
            value,
            format!(
                "`block = {}` is {} x {} x {} = {threads} threads; a block has at most 1024, \
                 with x and y up to 1024 and z up to 64",
                quote!(#value),
                shape[0],
                shape[1],
                shape[2]
            ),
        ));
    }
    Ok(shape)
}

const OPTIONS_HELP: &str = "it takes `cooperative` (a kernel that syncs its grid through \
     a `CooperativeGrid`), `max_threads = N` (the most threads a block of any launch has, 1 to \
     1024), `min_blocks = N` (with `max_threads`: blocks one multiprocessor should hold at once, \
     1 to 32), `max_registers = N` (registers a thread may use, 16 to 255) and `block = (x, y, \
     z)` (the one block shape of every launch, instead of `max_threads`), separated by commas; \
     the PTX entry point is named after the function";

fn parse_options(attr: TokenStream) -> syn::Result<Options> {
    use syn::parse::Parser;
    let metas = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated
        .parse2(attr)
        .map_err(|e| syn::Error::new(e.span(), OPTIONS_HELP))?;
    let mut options = Options::default();
    let mut first_span: Option<Span> = None;
    for meta in &metas {
        match meta {
            syn::Meta::Path(p) if p.is_ident("cooperative") => {
                if options.cooperative {
                    return Err(syn::Error::new_spanned(p, "`cooperative` is given twice"));
                }
                options.cooperative = true;
            }
            syn::Meta::NameValue(nv) if nv.path.is_ident("block") => {
                if options.block.is_some() {
                    return Err(syn::Error::new_spanned(&nv.path, "`block` is given twice"));
                }
                options.block = Some(parse_block(&nv.value)?);
                first_span.get_or_insert(nv.path.span());
            }
            syn::Meta::NameValue(nv) => {
                let key = nv
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let (slot, range, what) = match key.as_str() {
                    "max_threads" => (&mut options.max_threads, 1..=1024, "threads a block"),
                    "min_blocks" => (&mut options.min_blocks, 1..=32, "blocks a multiprocessor"),
                    "max_registers" => (&mut options.max_registers, 16..=255, "registers a thread"),
                    _ => {
                        return Err(syn::Error::new_spanned(
                            &nv.path,
                            format!("`{key}` is not an option of `#[kernel]`: {OPTIONS_HELP}"),
                        ))
                    }
                };
                if slot.is_some() {
                    return Err(syn::Error::new_spanned(
                        &nv.path,
                        format!("`{key}` is given twice"),
                    ));
                }
                let value = match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u32>().ok(),
                    _ => None,
                };
                match value {
                    Some(v) if range.contains(&v) => *slot = Some(v),
                    _ => {
                        return Err(syn::Error::new_spanned(
                            &nv.value,
                            format!(
                                "`{key}` takes a whole number of {what} from {} to {}, \
                                 written as a literal (`{key} = {}`)",
                                range.start(),
                                range.end(),
                                range.end().min(&256)
                            ),
                        ))
                    }
                }
                first_span.get_or_insert(nv.path.span());
            }
            syn::Meta::Path(p)
                if ["max_threads", "min_blocks", "max_registers", "block"]
                    .iter()
                    .any(|k| p.is_ident(k)) =>
            {
                let key = quote!(#p).to_string();
                let example = match key.as_str() {
                    "max_threads" => "max_threads = 256",
                    "min_blocks" => "max_threads = 256, min_blocks = 4",
                    "block" => "block = (32, 8)",
                    _ => "max_registers = 64",
                };
                return Err(syn::Error::new_spanned(
                    p,
                    format!("`{key}` takes a number: `#[kernel({example})]`"),
                ));
            }
            _ => {
                let written = quote!(#meta).to_string();
                return Err(syn::Error::new_spanned(
                    meta,
                    format!("`{written}` is not an option of `#[kernel]`: {OPTIONS_HELP}"),
                ));
            }
        }
    }
    let span = first_span.unwrap_or_else(Span::call_site);
    if options.block.is_some() && options.max_threads.is_some() {
        return Err(syn::Error::new(
            span,
            "`block` fixes the block's shape, and with it its thread count: drop `max_threads` \
             (`#[kernel(block = (32, 8))]` allows exactly 256 threads a block)",
        ));
    }
    if options.min_blocks.is_some() && options.max_threads.is_none() && options.block.is_none() {
        return Err(syn::Error::new(
            span,
            "`min_blocks` counts blocks of `max_threads` threads: give `max_threads` too \
             (`#[kernel(max_threads = 256, min_blocks = 4)]`), as CUDA's \
             `__launch_bounds__(256, 4)` does, or the block's shape (`block = (32, 8)`)",
        ));
    }
    if options.min_blocks.is_some() && options.max_registers.is_some() {
        return Err(syn::Error::new(
            span,
            "`min_blocks` and `max_registers` both cap the kernel's registers: keep one \
             (`min_blocks` lets ptxas derive the cap from the blocks that must fit; \
             `max_registers` names it)",
        ));
    }
    Ok(options)
}

fn check_signature(func: &ItemFn) -> syn::Result<()> {
    let sig = &func.sig;
    let fail = |span: Span, msg: &str| Err(syn::Error::new(span, msg));
    if !sig.generics.params.is_empty() {
        // `new_spanned` covers all of `<...>`, not only its first token.
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a kernel cannot be generic: a PTX entry point has one concrete signature; \
             write one #[kernel] per type (a macro_rules! can stamp them out) and call a \
             generic function from each",
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(syn::Error::new_spanned(
            ty,
            "a kernel returns nothing: write results through an `Out<T>` parameter",
        ));
    }
    if let Some(a) = &sig.asyncness {
        return fail(a.span(), "a kernel cannot be `async`");
    }
    if let Some(u) = &sig.unsafety {
        return fail(
            u.span(),
            "a kernel is not `unsafe fn`: the launch checks its arguments; use `unsafe` blocks inside",
        );
    }
    if let Some(v) = &sig.variadic {
        return fail(v.span(), "a kernel cannot be variadic");
    }
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        return fail(r.span(), "a kernel is a free function, not a method");
    }
    Ok(())
}

/// `ThreadBlock`, `Grid` and `CooperativeGrid` (by their last path
/// segment) are handles;
/// `Shared<A>` is a shared array, `Pipeline<A>` a ring of stages in
/// shared memory, `Inbox<A>` an array other blocks of the cluster send
/// into.
fn classify(ty: &Type) -> Param {
    if let Type::Path(tp) = ty {
        if tp.qself.is_none() {
            if let Some(last) = tp.path.segments.last() {
                if last.ident == "Shared" || last.ident == "Pipeline" || last.ident == "Inbox" {
                    if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(array)) = args.args.first() {
                            return Param::Shared {
                                array: Box::new(array.clone()),
                                dynamic: last.ident == "Shared" && matches!(array, Type::Slice(_)),
                                ty: Box::new(ty.clone()),
                            };
                        }
                    }
                }
                if last.arguments.is_empty() {
                    if last.ident == "ThreadBlock" {
                        return Param::Handle(Handle::ThreadBlock);
                    }
                    if last.ident == "Grid" {
                        return Param::Handle(Handle::Grid);
                    }
                    if last.ident == "Cluster" {
                        return Param::Handle(Handle::Cluster);
                    }
                    if last.ident == "CooperativeGrid" {
                        return Param::Handle(Handle::CooperativeGrid);
                    }
                }
            }
        }
    }
    Param::Lowered(Box::new(ty.clone()))
}

/// The parameter's type with every lifetime, named or elided, made
/// `'static`, for use in type positions of the entry point and descriptor.
fn static_lifetimes(ty: &Type) -> Type {
    struct MakeStatic;
    impl VisitMut for MakeStatic {
        fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
            *lt = syn::Lifetime::new("'static", lt.span());
        }
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            if r.lifetime.is_none() {
                r.lifetime = Some(syn::Lifetime::new("'static", Span::call_site()));
            }
            syn::visit_mut::visit_type_reference_mut(self, r);
        }
        fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
            // `Out<f32>` (and its alias `InOut<f32>`) has an elided lifetime
            // parameter: make it explicit.
            if seg.ident == "Out" || seg.ident == "InOut" {
                if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
                    let has_lifetime = args
                        .args
                        .iter()
                        .any(|a| matches!(a, syn::GenericArgument::Lifetime(_)));
                    if !has_lifetime {
                        args.args.insert(
                            0,
                            syn::GenericArgument::Lifetime(syn::Lifetime::new(
                                "'static",
                                Span::call_site(),
                            )),
                        );
                    }
                }
            }
            syn::visit_mut::visit_path_segment_mut(self, seg);
        }
    }
    let mut ty = ty.clone();
    MakeStatic.visit_type_mut(&mut ty);
    ty
}
