//! What each warp instruction computes, from the PTX ISA's definitions.

use super::lane::ShflMode;

/// The lane `shfl.sync` reads for the calling `lane`, from PTX's
/// pseudo-code: the low five bits of `b` and `c`, the segment mask in
/// `c[12:8]`, and the caller's own lane when the source is out of range.
pub(crate) fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> u32 {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, in_range) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if in_range { j as u32 } else { lane }
}

/// Bit `l` of the result is set for each lane `l` of `mask` for which
/// `pred(l)` holds.
pub(crate) fn lanes_where(mask: u32, mut pred: impl FnMut(u32) -> bool) -> u32 {
    (0..32)
        .filter(|&l| mask & (1 << l) != 0 && pred(l))
        .fold(0, |m, l| m | (1 << l))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `c` for a tile of `n`: segment bits, and the clamp lane.
    fn c(n: u32, up: bool) -> u32 {
        ((32 - n) << 8) | if up { 0 } else { 31 }
    }

    #[test]
    fn sources_stay_in_the_segment_or_fall_back_to_the_caller() {
        // Tile of 8, lane 13 (rank 5 of the tile starting at lane 8).
        assert_eq!(shfl_source(ShflMode::Idx, 13, 2, c(8, false)), 10);
        assert_eq!(shfl_source(ShflMode::Idx, 13, 10, c(8, false)), 10); // 10 % 8
        assert_eq!(shfl_source(ShflMode::Up, 13, 3, c(8, true)), 10);
        assert_eq!(shfl_source(ShflMode::Up, 13, 6, c(8, true)), 13); // below the tile
        assert_eq!(shfl_source(ShflMode::Down, 13, 2, c(8, false)), 15);
        assert_eq!(shfl_source(ShflMode::Down, 13, 3, c(8, false)), 13); // above the tile
        assert_eq!(shfl_source(ShflMode::Bfly, 13, 1, c(8, false)), 12);
        assert_eq!(shfl_source(ShflMode::Bfly, 13, 16, c(8, false)), 13); // partner above: own
        // The hardware reads the low five bits of b.
        assert_eq!(shfl_source(ShflMode::Down, 3, 33, c(32, false)), 4);
        assert_eq!(shfl_source(ShflMode::Bfly, 2, 38, c(32, false)), 2 ^ 6);
    }

    #[test]
    fn lanes_where_only_counts_the_mask() {
        assert_eq!(lanes_where(0xf0, |l| l % 2 == 0), 0b0101_0000);
    }
}
