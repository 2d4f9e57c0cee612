//! [`PtxSet`]: the PTX of one kernel crate, one text per SM target, with
//! compiled machine code (SASS) beside it where it was built, and the
//! choice of what a device runs.

/// The PTX of one kernel crate, built for one or more SM targets, and
/// optionally its machine code (cubins) for some GPUs.
///
/// Made by [`include_ptx!`](crate::include_ptx) from what
/// [`PtxBuilder`](crate::PtxBuilder) wrote, or by hand from PTX text.
/// A GPU with machine code of its own architecture in the set loads that
/// and starts at once; any other compiles the PTX when it loads it (the
/// driver's JIT, which takes seconds for a large module the first time on
/// a machine, and is cached on disk after that).
#[derive(Clone, Copy, Debug)]
pub struct PtxSet {
    name: &'static str,
    /// `(sm, ptx)` pairs, in any order.
    variants: &'static [(u32, &'static str)],
    /// `(sm, cubin)` pairs: machine code for `sm`'s architecture, built
    /// from the PTX of the same `sm` (or, for a major version with no PTX
    /// of its own, the newest PTX below it).
    sass: &'static [(u32, &'static [u8])],
}

impl PtxSet {
    /// A set named `name` (used in error messages) holding `variants`, each
    /// the PTX text for an SM target given as `10 * major + minor`.
    pub const fn new(name: &'static str, variants: &'static [(u32, &'static str)]) -> Self {
        PtxSet {
            name,
            variants,
            sass: &[],
        }
    }

    /// The same set with machine code: `sass` holds cubins (ptxas's
    /// output) for SM targets given as `10 * major + minor`. A cubin for
    /// `sm_XY` runs on GPUs of major version `X` and minor `Y` or more; a
    /// GPU the cubins do not cover runs the PTX.
    ///
    /// ```
    /// static CUBIN: &[u8] = &[0x7f, b'E', b'L', b'F']; // ptxas's output, e.g. include_bytes!
    /// static SET: coop_host::PtxSet =
    ///     coop_host::PtxSet::new("k", &[(80, "ptx for 80"), (90, "ptx for 90")])
    ///         .with_sass(&[(80, CUBIN)]);
    /// let set = SET;
    /// assert_eq!(set.sass_for(86).map(|(sm, _)| sm), Some(80)); // an RTX 30: sm_80's code
    /// assert_eq!(set.sass_for(90), None); // an H100 compiles the sm_90 PTX
    /// ```
    pub const fn with_sass(self, sass: &'static [(u32, &'static [u8])]) -> Self {
        PtxSet { sass, ..self }
    }

    /// The set's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The SM targets held.
    pub fn targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.variants.iter().map(|&(sm, _)| sm)
    }

    /// The PTX for `sm`, if built.
    pub fn get(&self, sm: u32) -> Option<&'static str> {
        self.variants
            .iter()
            .find(|&&(s, _)| s == sm)
            .map(|&(_, p)| p)
    }

    /// The newest target a device of `device_sm` can run (PTX for sm_X runs
    /// on sm_X and later), with its text.
    ///
    /// ```
    /// let set = coop_host::PtxSet::new("k", &[(80, "a"), (90, "b")]);
    /// assert_eq!(set.best_for(86), Some((80, "a")));
    /// assert_eq!(set.best_for(90), Some((90, "b")));
    /// assert_eq!(set.best_for(75), None);
    /// ```
    pub fn best_for(&self, device_sm: u32) -> Option<(u32, &'static str)> {
        self.variants
            .iter()
            .filter(|&&(sm, ptx)| sm <= device_sm && !ptx.is_empty())
            .max_by_key(|&&(sm, _)| sm)
            .copied()
    }

    /// The machine code a GPU of `device_sm` can run, if the set holds
    /// any: the newest cubin of the device's major version whose minor is
    /// not above the device's.
    pub fn sass_for(&self, device_sm: u32) -> Option<(u32, &'static [u8])> {
        self.sass
            .iter()
            .filter(|&&(sm, code)| sm / 10 == device_sm / 10 && sm <= device_sm && !code.is_empty())
            .max_by_key(|&&(sm, _)| sm)
            .copied()
    }
}
