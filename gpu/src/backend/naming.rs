//! Names for diagnostics: the collective a kernel wrote, for the barriers
//! and warp instructions it is made of.

use super::Site;

/// Which collective the calling thread is in, by the name the kernel wrote.
pub(crate) trait Naming {
    /// The calling thread enters the collective `call` (`"reduce"`,
    /// `"inclusive_scan"`, a tile's `"any"`), written by the kernel at
    /// `site`. PTX: nothing. CPU: a barrier or warp instruction the thread
    /// waits at with the same `site` is reported as `call`, the name the
    /// kernel's author knows, not as the instruction inside.
    fn entering(call: &'static str, site: Site);
}
