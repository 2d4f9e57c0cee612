//! The launch plan of a reduction: how many blocks its first launch has,
//! dealt the input's tiles in turn, and the [`Strategy`] that brings the
//! blocks' results together. Both backends follow it (the CPU backend runs
//! [`Strategy::OneBlock`] as two launches).

/// Threads per block of every launch of a reduction.
pub const THREADS: u32 = 256;

/// Most blocks per multiprocessor of the first launch, by default.
///
/// The first launch deals the input's tiles to its blocks in turn (each
/// thread of a block loads four 16-byte chunks of a tile): a small input
/// gets one block per tile, a large one up to this many blocks per
/// multiprocessor, several waves of the built-in kernels (a wave: as many
/// blocks as the driver's occupancy figure says a multiprocessor runs at
/// once). With several waves,
/// blocks that finish early (on a multiprocessor with a larger share of the
/// memory's bandwidth, or whose tiles were in L2) make room for the others,
/// and the launch ends with less of a tail than one wave of equal shares.
pub const DEFAULT_BLOCKS_PER_SM: u32 = 64;

/// Tiles that a block of the first launch gets at least, by default, once
/// every multiprocessor has a wave of blocks.
pub const MIN_TILES_PER_BLOCK: usize = 1;

/// How the results of the first launch's blocks come together into one
/// value.
///
/// Every block of the first launch reduces the tiles it was dealt to one
/// value; the strategies differ in who reduces those values and in how many
/// launches. A launch's start-up is a fixed cost, large beside the work of
/// a small or medium input, so fewer launches are faster there; for a large
/// input, what counts is that no block holds its multiprocessor longer than
/// its share of the input needs.
///
/// | strategy | launches | chosen when |
/// |---|---|---|
/// | [`OneLaunch`](Strategy::OneLaunch) | 1 | the kernel takes tickets and the grid is one wave |
/// | [`OneBlock`](Strategy::OneBlock) | 1 | otherwise, for a grid of one block |
/// | [`TwoLaunches`](Strategy::TwoLaunches) | 2 | otherwise |
///
/// A small input (one tile or less) gets a grid of one block, so it is
/// reduced in one launch either way; with at most 16 elements a thread the
/// kernel then takes its own shorter path, without tiles
/// (`coop::device::reduce`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    /// One launch, finished by its last block: each block stores its result,
    /// makes it visible device-wide and takes a ticket from a counter; the
    /// block that takes the last ticket reduces all the blocks' results (in
    /// block order), stores the total after them and sets the counter back
    /// to zero.
    ///
    /// Needs a kernel with tickets (`coop::device::reduce::reduce_grid`, the
    /// built-in kernels), and is chosen only for a grid of one wave, every
    /// block resident at once. It saves the second launch's start-up; but
    /// the fence and the atomic keep each block on its multiprocessor a
    /// little longer, which past one wave delays the blocks waiting for a
    /// place, so a larger grid takes [`TwoLaunches`](Strategy::TwoLaunches).
    OneLaunch,
    /// One launch of one block, storing its result straight into the final
    /// slot: a grid of one block with a kernel that takes no tickets
    /// (`coop::device::reduce::reduce_blocks`), whose second launch would only
    /// reduce that one value again. Saves the second launch's start-up.
    OneBlock,
    /// Two launches: every block of the first stores its result, then one
    /// block reduces those into the final slot. For a grid past one wave,
    /// and for every grid of more than one block when the kernel takes no
    /// tickets (`reduce_grid` without tickets is a first pass).
    TwoLaunches,
}

/// The launch plan of one reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    /// Blocks of the first launch.
    pub blocks: u32,
    /// How their results come together.
    pub strategy: Strategy,
}

/// The grid settings of a [`Reducer`](super::Reducer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sizing {
    /// Most blocks per multiprocessor of the first launch (at least 1).
    pub blocks_per_sm: u32,
    /// Fewest tiles a block, once every multiprocessor has a wave (at
    /// least 1).
    pub tiles_per_block: usize,
}

impl Default for Sizing {
    fn default() -> Self {
        Sizing {
            blocks_per_sm: DEFAULT_BLOCKS_PER_SM,
            tiles_per_block: MIN_TILES_PER_BLOCK,
        }
    }
}

impl Sizing {
    /// The plan for `n` elements of `T` on a device of `multiprocessors`,
    /// each running `resident` blocks of the kernel at once, with a kernel
    /// that takes tickets or not.
    /// The grid of a reduction that always finishes in one launch (a
    /// transform-reduction): one block per tile of `n` elements of `T`, at
    /// most one wave of `resident` blocks a multiprocessor (capped by
    /// `blocks_per_sm`), every block resident at once so that its last block
    /// never waits long for a place; a block takes several tiles when the
    /// input has more.
    pub fn one_wave<T>(&self, n: usize, multiprocessors: u32, resident: u32) -> u32 {
        let tiles = n.div_ceil(tile_elements::<T>()).max(1);
        let wave = multiprocessors as usize * resident.clamp(1, self.blocks_per_sm) as usize;
        tiles.min(wave).max(1) as u32
    }

    pub fn plan<T>(&self, n: usize, multiprocessors: u32, resident: u32, tickets: bool) -> Plan {
        let (blocks, one_wave) = self.deal_tiles::<T>(n, multiprocessors, resident);
        let strategy = if tickets && one_wave {
            Strategy::OneLaunch
        } else if blocks == 1 {
            Strategy::OneBlock
        } else {
            Strategy::TwoLaunches
        };
        Plan {
            blocks: blocks as u32,
            strategy,
        }
    }

    /// Deals `n` elements of `T`, cut into tiles of [`tile_elements`], to
    /// the blocks of the first launch in turn: block `b` of `B` reduces
    /// tiles `b`, `b + B`, ... Returns `B`, given `resident` blocks a
    /// multiprocessor at once, and whether the `B` blocks are one wave
    /// (every block resident at once).
    ///
    /// Dealt in turn rather than cut into one contiguous share a block, a
    /// block's first load needs no division and the blocks' loads of one
    /// step are neighbours in memory. The grid is one block per tile while
    /// that fills at most one wave; past that, as many blocks as give each
    /// at least `tiles_per_block` tiles, no fewer than one wave and no more
    /// than `blocks_per_sm` a multiprocessor (see
    /// [`DEFAULT_BLOCKS_PER_SM`] for why several waves).
    pub fn deal_tiles<T>(&self, n: usize, multiprocessors: u32, resident: u32) -> (usize, bool) {
        let tiles = n.div_ceil(tile_elements::<T>()).max(1);
        let sms = multiprocessors as usize;
        let most = sms * self.blocks_per_sm as usize;
        let one_wave = sms * resident.clamp(1, self.blocks_per_sm) as usize;
        let blocks = tiles
            .div_ceil(self.tiles_per_block)
            .clamp(one_wave, most)
            .min(tiles);
        (blocks, blocks <= one_wave)
    }
}

/// Elements of `T` in one tile: each of a block's [`THREADS`] threads loads
/// four 16-byte chunks.
pub(super) fn tile_elements<T>() -> usize {
    THREADS as usize * (16 / std::mem::size_of::<T>().clamp(1, 16)).max(1) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_launch_gives_each_tile_a_block_up_to_sixty_four_per_sm() {
        let sizing = Sizing::default();
        // 132 multiprocessors running 6 blocks each at once: 792 a wave.
        let f32_grid = |n: usize| sizing.deal_tiles::<f32>(n, 132, 6);
        // One tile: 256 threads x four 16-byte chunks = 4096 f32.
        assert_eq!(tile_elements::<f32>(), 4096);
        assert_eq!(f32_grid(0), (1, true));
        assert_eq!(f32_grid(1000), (1, true));
        assert_eq!(f32_grid(3 * 4096), (3, true));
        assert_eq!(f32_grid(792 * 4096), (792, true)); // the most in one launch
        assert_eq!(f32_grid(792 * 4096 + 1), (793, false));
        assert_eq!(f32_grid(1 << 26), (8448, false)); // 16384 tiles: 64 a multiprocessor
        assert_eq!(f32_grid(1 << 28), (8448, false));
        // 2048 f64 a tile.
        assert_eq!(sizing.deal_tiles::<f64>(1 << 20, 132, 6), (512, true));
        // Fewest tiles a block: one wave first, then that many tiles each.
        let eight = Sizing {
            tiles_per_block: 8,
            ..Sizing::default()
        };
        assert_eq!(eight.deal_tiles::<f32>(1 << 22, 132, 6), (792, true));
        assert_eq!(eight.deal_tiles::<f32>(1 << 26, 132, 6), (2048, false));
        // A lower limit caps both the wave and the total.
        let four = Sizing {
            blocks_per_sm: 4,
            ..Sizing::default()
        };
        assert_eq!(four.deal_tiles::<f32>(1 << 28, 132, 6), (528, true));
        let one = Sizing {
            blocks_per_sm: 1,
            ..Sizing::default()
        };
        assert_eq!(one.deal_tiles::<f32>(1 << 28, 132, 6), (132, true));
    }

    #[test]
    fn each_strategy_is_chosen_where_it_pays() {
        let sizing = Sizing::default();
        let plan = |n: usize, tickets| sizing.plan::<f32>(n, 132, 6, tickets);
        let (one_tile, one_wave, past_one_wave) = (1000, 792 * 4096, 792 * 4096 + 1);
        assert_eq!(plan(one_tile, true).strategy, Strategy::OneLaunch);
        assert_eq!(plan(one_wave, true).strategy, Strategy::OneLaunch);
        assert_eq!(plan(past_one_wave, true).strategy, Strategy::TwoLaunches);
        assert_eq!(plan(one_tile, false).strategy, Strategy::OneBlock);
        assert_eq!(plan(one_wave, false).strategy, Strategy::TwoLaunches);
        assert_eq!(plan(past_one_wave, false).blocks, 793);
    }
}
