//! `MatchKey`: the values `match_any` and `match_all` compare across a
//! tile, bit for bit, as one or two 32-bit words.

use crate::backend::target::Target;
use crate::backend::{Site, WarpCollectives};

/// A value that `match_any` and `match_all` can compare across a tile:
/// integers and floats of 8 to 64 bits, `bool` and `char`, compared bit for
/// bit (so `-0.0` and `0.0` differ and a NaN matches the same NaN).
///
/// ```
/// use coop::prelude::*;
///
/// /// Which lanes of the warp hold the same letter.
/// #[kernel]
/// pub fn same_letter(block: ThreadBlock, text: &[u8], out: Out<u32>) {
///     let warp = block.tiled_partition::<32>();
///     let r = block.thread_rank() as usize;
///     out.write(r, warp.match_any(text[r] as char));
/// }
///
/// let text = b"abracadabra, abracadabra, abraca";
/// let mut out = vec![0u32; 32];
/// coop_host::Cpu::new().launch(same_letter, coop_host::LaunchConfig::new(1, 32), (&text[..], &mut out))?;
/// assert_eq!(out[0].count_ones(), 13); // 'a' appears 13 times
/// assert_eq!(out[1], out[8]); // the two 'b's of the first word match
/// # Ok::<(), coop_host::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be compared by `match_any`/`match_all`",
    label = "not a `MatchKey`",
    note = "`match.sync` compares one 32- or 64-bit register per lane: use an integer or float of at most 64 bits, `bool` or `char`, or match on a key derived from your value"
)]
pub trait MatchKey: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn match_any(self, mask: u32, site: Site) -> u32;
    #[doc(hidden)]
    fn match_all(self, mask: u32, site: Site) -> (u32, bool);
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! match_key {
    ($bits:ty, $any:ident, $all:ident: $($t:ty => |$v:ident| $to:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl MatchKey for $t {
            #[inline(always)]
            fn match_any(self, mask: u32, site: Site) -> u32 {
                let $v = self;
                Target::$any(mask, $to as $bits, site)
            }
            #[inline(always)]
            fn match_all(self, mask: u32, site: Site) -> (u32, bool) {
                let $v = self;
                Target::$all(mask, $to as $bits, site)
            }
        }
    )*};
}

match_key!(u32, match_any_32, match_all_32:
    u8 => |v| v, i8 => |v| v as u8, u16 => |v| v, i16 => |v| v as u16,
    u32 => |v| v, i32 => |v| v, f32 => |v| v.to_bits(), bool => |v| v, char => |v| v);
match_key!(u64, match_any_64, match_all_64:
    u64 => |v| v, i64 => |v| v, usize => |v| v, isize => |v| v, f64 => |v| v.to_bits());
