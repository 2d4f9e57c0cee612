//! [`PtxSet`]: the PTX of one kernel crate, one text per SM target, and
//! the choice of the text a device runs.

/// The PTX of one kernel crate, built for one or more SM targets.
///
/// Made by [`include_ptx!`](crate::include_ptx) from what
/// [`PtxBuilder`](crate::PtxBuilder) wrote, or by hand from PTX text.
#[derive(Clone, Copy, Debug)]
pub struct PtxSet {
    name: &'static str,
    /// `(sm, ptx)` pairs, in any order.
    variants: &'static [(u32, &'static str)],
}

impl PtxSet {
    /// A set named `name` (used in error messages) holding `variants`, each
    /// the PTX text for an SM target given as `10 * major + minor`.
    pub const fn new(name: &'static str, variants: &'static [(u32, &'static str)]) -> Self {
        PtxSet { name, variants }
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
}
