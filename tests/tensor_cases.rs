//! Tensor copies (`kernels::tensor_copies`) against host references, on
//! whichever device: run on the CPU backend by `tensor_copies.rs` and on a
//! GPU by `gpu.rs`.

use coop_host::{
    Device, Error, LaunchConfig, OutOfBounds, Program, TensorLayout, TensorMap, TensorMapMut,
};
use coop_test_kernels::tensor_copies as k;

/// The tiles of `tile` elements (outermost first) at each of `coords`
/// (`tile.len()` coordinates a tile) of the array `data` laid out with
/// `dims` and `strides` (elements, outermost first), row-major, `fill`
/// outside the array.
pub fn reference<E: Copy>(
    data: &[E],
    dims: &[usize],
    strides: &[usize],
    tile: &[usize],
    coords: &[i32],
    fill: E,
) -> Vec<E> {
    let rank = dims.len();
    let elements: usize = tile.iter().product();
    let mut out = Vec::new();
    for at in coords.chunks(rank) {
        for e in 0..elements {
            let mut rest = e;
            let mut offset = Some(0usize);
            for k in (0..rank).rev() {
                let i = rest % tile[k];
                rest /= tile[k];
                let g = at[k] as i64 + i as i64;
                offset = match offset {
                    Some(o) if g >= 0 && (g as usize) < dims[k] => {
                        Some(o + g as usize * strides[k])
                    }
                    _ => None,
                };
            }
            out.push(offset.map_or(fill, |o| data[o]));
        }
    }
    out
}

/// Runs `$kernel` over the tiles at `$coords` of `$data` with `$layout`
/// on `$blocks` blocks of `$threads`; the output, a tile after another.
macro_rules! run {
    ($device:expr, $program:expr, $kernel:expr, $tile:ty, $data:expr, $layout:expr, $coords:expr, $blocks:expr, $threads:expr) => {
        (|| -> Result<Vec<_>, Error> {
            let data = $device.upload($data)?;
            let coords = $device.upload($coords)?;
            let map = TensorMap::<$tile>::new($device, &data, $layout)?;
            let tiles = $coords.len() / <$tile as coop::memory::tile::TileArray>::RANK;
            let elements = <$tile as coop::memory::tile::TileArray>::ELEMENTS;
            let mut out = $device.zeros(tiles * elements)?;
            $program.launch(
                $kernel,
                LaunchConfig::new($blocks, $threads),
                (&map, &coords, &mut out),
            )?;
            $device.download(&out)
        })()
    };
}

/// Coordinates of `n` tiles of `tile` over an array of `dims`: inside,
/// over every edge, negative and wholly outside, from a fixed seed; the
/// innermost a multiple of `step` elements (16 bytes, as the copy engine
/// requires).
fn coords(dims: &[usize], tile: &[usize], n: usize, seed: u64, step: i64) -> Vec<i32> {
    let mut x = seed;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as i64
    };
    let mut out = Vec::new();
    for _ in 0..n {
        for (k, (&d, &t)) in dims.iter().zip(tile).enumerate() {
            // From a tile before the start to one past the end.
            let span = d as i64 + 2 * t as i64;
            let c = next() % span - t as i64;
            let c = if k + 1 == dims.len() {
                c - c.rem_euclid(step)
            } else {
                c
            };
            out.push(c as i32);
        }
    }
    out
}

/// Runs every case on `device`; returns the number of cases. With a
/// `limit` (a GPU), each launch under a watchdog of that limit.
pub fn check_all(device: &Device, program: &Program, limit: Option<std::time::Duration>) -> usize {
    let full = limit.is_some();
    let watch = &|what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let mut cases = 0;
    let tiles_per_case = if full { 200 } else { 24 };

    cases += check_2d_f32(device, program, watch, tiles_per_case);
    cases += check_swizzled(device, program, watch, tiles_per_case);

    // 3-D u16.
    for dims in [[3usize, 9, 24], [2, 4, 8], [5, 1, 40]] {
        let what = format!("tensor_tiles_3d_u16 {dims:?}");
        let _w = watch(what.clone());
        let n: usize = dims.iter().product();
        let data: Vec<u16> = (0..n).map(|i| (i * 7 + 1) as u16).collect();
        let strides = [dims[1] * dims[2], dims[2], 1];
        let at = coords(&dims, &[2, 4, 8], tiles_per_case, n as u64, 8);
        let got = run!(
            device,
            program,
            k::tensor_tiles_3d_u16,
            [[[u16; 8]; 4]; 2],
            &data,
            dims,
            &at,
            4,
            64
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            got == reference(&data, &dims, &strides, &[2, 4, 8], &at, 0),
            "{what}: differs from the host"
        );
        cases += 1;
    }

    // 4-D i32 with a padded innermost row (strides in elements).
    {
        let dims = [4usize, 3, 7, 6];
        let strides = [3 * 7 * 8, 7 * 8, 8, 1];
        let what = format!("tensor_tiles_4d_i32 {dims:?} strides {strides:?}");
        let _w = watch(what.clone());
        let data: Vec<i32> = (0..4 * 3 * 7 * 8).map(|i: i32| i * -3 + 11).collect();
        let at = coords(&dims, &[3, 2, 5, 4], tiles_per_case, 4, 4);
        let layout = TensorLayout::new(dims).strides(strides);
        let got = run!(
            device,
            program,
            k::tensor_tiles_4d_i32,
            [[[[i32; 4]; 5]; 2]; 3],
            &data,
            layout,
            &at,
            2,
            128
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            got == reference(&data, &dims, &strides, &[3, 2, 5, 4], &at, 0),
            "{what}: differs from the host"
        );
        cases += 1;
    }

    // 5-D u64.
    {
        let dims = [3usize, 2, 5, 3, 4];
        let strides = [2 * 5 * 3 * 4, 5 * 3 * 4, 3 * 4, 4, 1];
        let what = format!("tensor_tiles_5d_u64 {dims:?}");
        let _w = watch(what.clone());
        let data: Vec<u64> = (0..3 * 2 * 5 * 3 * 4)
            .map(|i| (i as u64) << 33 | 5)
            .collect();
        let at = coords(&dims, &[2; 5], tiles_per_case, 5, 2);
        let got = run!(
            device,
            program,
            k::tensor_tiles_5d_u64,
            [[[[[u64; 2]; 2]; 2]; 2]; 2],
            &data,
            dims,
            &at,
            3,
            32
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            got == reference(&data, &dims, &strides, &[2; 5], &at, 0),
            "{what}: differs from the host"
        );
        cases += 1;
    }

    // 2-D f64 tile sums through `Stage::at`, NaN fill on tiles over the edge.
    {
        let (rows, cols) = (20usize, 130usize);
        let what = format!("tensor_tile_sums_f64 {rows} x {cols}");
        let _w = watch(what.clone());
        let data: Vec<f64> = (0..rows * cols).map(|i| (i % 13) as f64).collect();
        let at = [0, 0, 8, 64, 12, 64, 16, 100, -4, -60];
        let layout = TensorLayout::new([rows, cols]).fill(OutOfBounds::Nan);
        let got = (|| -> Result<Vec<f64>, Error> {
            let buffer = device.upload(&data)?;
            let coords = device.upload(&at)?;
            let map = TensorMap::<[[f64; 64]; 8]>::new(device, &buffer, layout)?;
            let mut sums = device.zeros::<f64>(at.len() / 2)?;
            program.launch(
                k::tensor_tile_sums_f64,
                LaunchConfig::new(1, 512),
                (&map, &coords, &mut sums),
            )?;
            device.download(&sums)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let tiles = reference(&data, &[rows, cols], &[cols, 1], &[8, 64], &at, f64::NAN);
        for (k, (g, tile)) in got.iter().zip(tiles.chunks(512)).enumerate() {
            let expected: f64 = tile.iter().sum();
            assert!(
                *g == expected || (g.is_nan() && expected.is_nan()),
                "{what}: tile {k} sums to {g}, the host to {expected}"
            );
        }
        assert!(got[0] == tiles[..512].iter().sum::<f64>() && got[3].is_nan());
        cases += 1;
    }
    cases += check_moves(device, program, watch);
    // 1-D u8: a length that is not a multiple of the tile.
    // Tiles inside the array first, then over its edges and outside it.
    for (n, blocks, inside) in [
        (4096usize, 2u32, true),
        (1000, 1, false),
        (4099, 3, false),
        (128, 2, false),
    ] {
        let what = format!("tensor_tiles_1d_u8 n {n} blocks {blocks} inside {inside}");
        let _w = watch(what.clone());
        let data: Vec<u8> = (0..n).map(|i| (i * 31 + i / 5) as u8).collect();
        let at = match inside {
            true => (0..n as i32 / 128).map(|k| 128 * k).collect(),
            false => coords(&[n], &[128], tiles_per_case, n as u64, 16),
        };
        let got = run!(
            device,
            program,
            k::tensor_tiles_1d_u8,
            [u8; 128],
            &data,
            [n],
            &at,
            blocks,
            96
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            got == reference(&data, &[n], &[1], &[128], &at, 0),
            "{what}: differs from the host"
        );
        cases += 1;
    }

    cases += check_move_1d(device, program, watch);
    cases += check_transposes(device, program, watch);
    cases += check_reductions(device, program, watch);
    cases += check_accumulate(device, program, watch);
    cases += check_multicasts(device, program, watch);
    cases += check_bulk_stores(device, program, watch);
    cases += check_bulk_reductions(device, program, watch);
    eprintln!("tensor copies: {cases} cases on {}", device.describe());
    cases
}

/// The 2-D `f32` cases (dense and padded rows, zero and NaN fill), which
/// CUDA's twin (`reference/tensor_copies.cu`) also runs; returns the number
/// of cases.
pub fn check_2d_f32(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
    tiles_per_case: usize,
) -> usize {
    let mut cases = 0;
    // Each kind of position on its own first: inside, over the far edges,
    // before the near edges, wholly outside; rows whose width is a
    // multiple of 16 bytes, then one that is not.
    let (rows, pitch) = (100usize, 72usize);
    let data: Vec<f32> = (0..rows * pitch).map(|i| i as f32 * 0.5 - 3.0).collect();
    for (cols, kind, at) in [
        (72usize, "inside", vec![0, 0, 16, 32, 84, 40]),
        (72, "over the far edges", vec![96, 0, 0, 60, 90, 48]),
        (72, "before the near edges", vec![-8, 0, 0, -16, -15, -32]),
        (
            72,
            "wholly outside",
            vec![100, 0, 0, 72, -16, 0, 200, 300, 0, -32],
        ),
        (68, "inside", vec![0, 0, 16, 32, 84, 36]),
        (68, "over the far edges", vec![96, 0, 0, 60, 90, 48]),
        (70, "inside", vec![0, 0, 16, 32, 84, 36]),
        (70, "over the far edges", vec![96, 0, 0, 60, 90, 48]),
    ] {
        let what = format!("tensor_tiles_2d_f32 {rows} x {cols} pitch {pitch}, tiles {kind}");
        let _w = watch(what.clone());
        let layout = TensorLayout::new([rows, cols]).strides([pitch, 1]);
        let got = run!(
            device,
            program,
            k::tensor_tiles_2d_f32,
            [[f32; 32]; 16],
            &data,
            layout,
            &at,
            2,
            128
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = reference(&data, &[rows, cols], &[pitch, 1], &[16, 32], &at, 0.0);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    for (rows, cols, pitch, fill) in [
        (100usize, 70usize, 72usize, OutOfBounds::Zero),
        (33, 40, 40, OutOfBounds::Nan),
        (16, 32, 32, OutOfBounds::Zero),
        (257, 300, 304, OutOfBounds::Nan),
    ] {
        for (blocks, threads) in [(1u32, 128u32), (5, 256)] {
            let what = format!(
                "tensor_tiles_2d_f32 {rows} x {cols} pitch {pitch} {fill:?} blocks {blocks}"
            );
            let _w = watch(what.clone());
            let data: Vec<f32> = (0..rows * pitch).map(|i| i as f32 * 0.5 - 3.0).collect();
            let mut at = coords(
                &[rows, cols],
                &[16, 32],
                tiles_per_case,
                (rows * cols) as u64,
                4,
            );
            let last_col = (cols as i32 - 1) & !3;
            at.extend([0, 0, (rows - 1) as i32, last_col, -16, -32, -15, -28]);
            let layout = TensorLayout::new([rows, cols])
                .strides([pitch, 1])
                .fill(fill);
            let got = run!(
                device,
                program,
                k::tensor_tiles_2d_f32,
                [[f32; 32]; 16],
                &data,
                layout,
                &at,
                blocks,
                threads
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let specialized = run!(
                device,
                program,
                k::tensor_specialized_2d_f32,
                [[f32; 32]; 16],
                &data,
                layout,
                &at,
                blocks,
                threads
            )
            .unwrap_or_else(|e| panic!("{what}, specialized: {e}"));
            let fill_value = if fill == OutOfBounds::Nan {
                f32::NAN
            } else {
                0.0
            };
            let expected = reference(
                &data,
                &[rows, cols],
                &[pitch, 1],
                &[16, 32],
                &at,
                fill_value,
            );
            let same = got.len() == expected.len()
                && got
                    .iter()
                    .zip(&expected)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
            assert!(same, "{what}: differs from the host");
            let same = specialized.len() == expected.len()
                && specialized
                    .iter()
                    .zip(&expected)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
            assert!(same, "{what}, specialized: differs from the host");
            cases += 2;
        }
    }

    cases
}

/// `dst` after storing into it, at each destination of `moves` (2 x rank
/// coordinates a tile: source, then destination), the tile of `src` at the
/// source (zeros outside `src`), dropping what falls outside `dst`.
#[allow(clippy::too_many_arguments)]
fn moved<E: Copy + Default>(
    src: &[E],
    src_dims: &[usize],
    src_strides: &[usize],
    mut dst: Vec<E>,
    dst_dims: &[usize],
    dst_strides: &[usize],
    tile: &[usize],
    moves: &[i32],
) -> Vec<E> {
    let rank = tile.len();
    let elements: usize = tile.iter().product();
    for m in moves.chunks(2 * rank) {
        let values = reference(src, src_dims, src_strides, tile, &m[..rank], E::default());
        for (e, v) in values.into_iter().enumerate() {
            let mut rest = e;
            let mut offset = Some(0usize);
            for k in (0..rank).rev() {
                let i = rest % tile[k];
                rest /= tile[k];
                let g = m[rank + k] as i64 + i as i64;
                offset = match offset {
                    Some(o) if g >= 0 && (g as usize) < dst_dims[k] => {
                        Some(o + g as usize * dst_strides[k])
                    }
                    _ => None,
                };
            }
            if let Some(o) = offset {
                dst[o] = v;
            }
        }
        let _ = elements;
    }
    dst
}

/// Tensor stores: tiles loaded from one array and stored into another by
/// the copy engine, at destinations that tile the array with partial
/// tiles at every edge and padding that must stay untouched.
fn check_moves(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    // From the safest destinations to the riskiest: tiles inside the
    // array, tiles over its far edges, before its near edges, wholly
    // outside it.
    for (kind, rows, cols, pitch, shift, extra, inside_sources, blocks) in [
        (
            "inside",
            64usize,
            64usize,
            64usize,
            (0i32, 0i32),
            0i32,
            true,
            3u32,
        ),
        (
            "inside, sources over the edges",
            64,
            64,
            64,
            (0, 0),
            0,
            false,
            3,
        ),
        ("over the far edges", 70, 72, 72, (0, 0), 0, false, 1),
        (
            "wholly past the far edges too",
            50,
            72,
            76,
            (0, 0),
            2,
            false,
            1,
        ),
        (
            "over the far edges, shifted",
            33,
            100,
            104,
            (3, 12),
            1,
            false,
            4,
        ),
    ] {
        let what = format!(
            "tensor_move_2d_f32 {rows} x {cols} pitch {pitch}, destinations {kind} (shift {shift:?})"
        );
        let _w = watch(what.clone());
        let (src_rows, src_cols) = (40usize, 92usize);
        let src: Vec<f32> = (0..src_rows * src_cols).map(|i| i as f32 + 0.25).collect();
        let mut moves = Vec::new();
        let mut x = (rows * cols) as u64;
        for i in 0..rows.div_ceil(16) as i32 + extra {
            for j in 0..cols.div_ceil(32) as i32 + extra {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (r, c) = match inside_sources {
                    true => (((x >> 33) % 25) as i32, (((x >> 40) % 61) as i32) & !3),
                    false => (
                        ((x >> 33) % 72) as i32 - 16,
                        (((x >> 40) % 154) as i32 - 32) & !3,
                    ),
                };
                moves.extend([r, c, 16 * i + shift.0, 32 * j + shift.1]);
            }
        }
        let sentinel = vec![-1.0f32; rows * pitch];
        let got = (|| -> Result<Vec<f32>, Error> {
            let src_buffer = device.upload(&src)?;
            let mut dst_buffer = device.upload(&sentinel)?;
            let moves_buffer = device.upload(&moves)?;
            {
                let from =
                    TensorMap::<[[f32; 32]; 16]>::new(device, &src_buffer, [src_rows, src_cols])?;
                let to = TensorMapMut::<[[f32; 32]; 16]>::new(
                    device,
                    &mut dst_buffer,
                    TensorLayout::new([rows, cols]).strides([pitch, 1]),
                )?;
                program.launch(
                    k::tensor_move_2d_f32,
                    LaunchConfig::new(blocks, 128),
                    (&from, &to, &moves_buffer),
                )?;
            }
            device.download(&dst_buffer)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = moved(
            &src,
            &[src_rows, src_cols],
            &[src_cols, 1],
            sentinel,
            &[rows, cols],
            &[pitch, 1],
            &[16, 32],
            &moves,
        );
        assert_same_rows(&what, &got, &expected, pitch);
        cases += 1;
    }
    cases
}

/// `tensor_swizzled_128_f32`: 2-D tiles of 16 x 32 `f32`s swizzled over
/// 128 bytes, inside the array, over its edges and outside it; run by the
/// GPU suite against CUDA's twin too. Returns the number of cases.
pub fn check_swizzled_128_f32(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
    tiles_per_case: usize,
) -> usize {
    let mut cases = 0;
    {
        let (rows, cols, pitch) = (70usize, 100usize, 104usize);
        let what = format!("tensor_swizzled_128_f32 {rows} x {cols} pitch {pitch}");
        let _w = watch(what.clone());
        let data: Vec<f32> = (0..rows * pitch).map(|i| i as f32 * 0.25 - 7.0).collect();
        let mut at = vec![0, 0, 16, 32, 54, 68];
        at.extend(coords(&[rows, cols], &[16, 32], tiles_per_case, 128, 4));
        let layout = TensorLayout::new([rows, cols]).strides([pitch, 1]);
        let got = run!(
            device,
            program,
            k::tensor_swizzled_128_f32,
            k::Swizzled128,
            &data,
            layout,
            &at,
            3,
            96
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = reference(&data, &[rows, cols], &[pitch, 1], &[16, 32], &at, 0.0);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    cases
}

/// Swizzled tiles (`Swizzled<T, SPAN>` of 32, 64 and 128 bytes): loaded
/// into rings whose stages start on and off the pattern's period, read by
/// `Stage::get`, `Stage::get_array` (8- and 16-byte runs) and `Stage::at`,
/// and stored back through the swizzle; each
/// against the host's reference of the plain tiles.
fn check_swizzled(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
    tiles_per_case: usize,
) -> usize {
    let mut cases = check_swizzled_128_f32(device, program, watch, tiles_per_case);
    {
        let (rows, cols) = (37usize, 72usize);
        let what = format!("tensor_swizzled_64_u16 {rows} x {cols}");
        let _w = watch(what.clone());
        let data: Vec<u16> = (0..rows * cols).map(|i| (i * 5 + 3) as u16).collect();
        let mut at = vec![0, 0, 8, 32, 33, 64];
        at.extend(coords(&[rows, cols], &[8, 32], tiles_per_case, 64, 8));
        let got = run!(
            device,
            program,
            k::tensor_swizzled_64_u16,
            k::Swizzled64,
            &data,
            [rows, cols],
            &at,
            2,
            64
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = reference(&data, &[rows, cols], &[cols, 1], &[8, 32], &at, 0);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    {
        let (rows, cols) = (50usize, 10usize);
        let what = format!("tensor_swizzled_32_u64 {rows} x {cols}");
        let _w = watch(what.clone());
        let data: Vec<u64> = (0..rows * cols).map(|i| (i as u64) << 35 | 9).collect();
        let mut at = vec![0, 0, 12, 4, 44, 8];
        at.extend(coords(&[rows, cols], &[12, 4], tiles_per_case, 32, 2));
        let got = run!(
            device,
            program,
            k::tensor_swizzled_32_u64,
            k::Swizzled32,
            &data,
            [rows, cols],
            &at,
            2,
            32
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = reference(&data, &[rows, cols], &[cols, 1], &[12, 4], &at, 0);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    {
        let dims = [3usize, 7, 304];
        let what = format!("tensor_swizzled_3d_u8 {dims:?}");
        let _w = watch(what.clone());
        let n: usize = dims.iter().product();
        let data: Vec<u8> = (0..n).map(|i| (i * 31 + i / 304) as u8).collect();
        let mut at = vec![0, 0, 0, 1, 4, 176];
        at.extend(coords(&dims, &[2, 4, 128], tiles_per_case, 3, 16));
        let got = run!(
            device,
            program,
            k::tensor_swizzled_3d_u8,
            k::Swizzled3d,
            &data,
            dims,
            &at,
            2,
            128
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = reference(&data, &dims, &[7 * 304, 304, 1], &[2, 4, 128], &at, 0);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    {
        let rows = 64usize;
        let what = format!("tensor_row_sums_swizzled {rows} x 32");
        let _w = watch(what.clone());
        let data: Vec<f32> = (0..rows * 32).map(|i| ((i * 7) % 23) as f32).collect();
        let got = (|| -> Result<Vec<f32>, Error> {
            let buffer = device.upload(&data)?;
            let map = TensorMap::<coop::memory::tile::Swizzled<[[f32; 32]; 32], 128>>::new(
                device,
                &buffer,
                [rows, 32],
            )?;
            let mut sums = device.zeros(rows)?;
            program.launch(
                k::tensor_row_sums_swizzled,
                LaunchConfig::new(2, 32),
                (&map, &mut sums),
            )?;
            device.download(&sums)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected: Vec<f32> = data.chunks(32).map(|r| r.iter().sum()).collect();
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    {
        let (rows, cols, pitch) = (45usize, 80usize, 84usize);
        let what = format!("tensor_move_swizzled_f32 {rows} x {cols} pitch {pitch}");
        let _w = watch(what.clone());
        let (src_rows, src_cols) = (40usize, 92usize);
        let src: Vec<f32> = (0..src_rows * src_cols).map(|i| i as f32 + 0.5).collect();
        let mut moves = Vec::new();
        for i in 0..rows.div_ceil(16) as i32 {
            for j in 0..cols.div_ceil(32) as i32 {
                moves.extend([(5 * i + 3 * j) % 30 - 4, (12 * j + 8 * i) % 76 - 8]);
                moves.extend([16 * i, 32 * j]);
            }
        }
        let sentinel = vec![-1.0f32; rows * pitch];
        let got = (|| -> Result<Vec<f32>, Error> {
            let src_buffer = device.upload(&src)?;
            let mut dst_buffer = device.upload(&sentinel)?;
            let moves_buffer = device.upload(&moves)?;
            {
                let from =
                    TensorMap::<k::Swizzled128>::new(device, &src_buffer, [src_rows, src_cols])?;
                let to = TensorMapMut::<k::Swizzled128>::new(
                    device,
                    &mut dst_buffer,
                    TensorLayout::new([rows, cols]).strides([pitch, 1]),
                )?;
                program.launch(
                    k::tensor_move_swizzled_f32,
                    LaunchConfig::new(3, 128),
                    (&from, &to, &moves_buffer),
                )?;
            }
            device.download(&dst_buffer)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = moved(
            &src,
            &[src_rows, src_cols],
            &[src_cols, 1],
            sentinel,
            &[rows, cols],
            &[pitch, 1],
            &[16, 32],
            &moves,
        );
        assert_same_rows(&what, &got, &expected, pitch);
        cases += 1;
    }
    cases
}

/// Tensor stores of 1-D tiles.
fn check_move_1d(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    {
        let n = 3008usize;
        let what = format!("tensor_move_1d_u8 n {n}");
        let _w = watch(what.clone());
        let src: Vec<u8> = (0..n).map(|i| (i * 13 + 7) as u8).collect();
        let moves: Vec<i32> = (0..13)
            .flat_map(|j| [((j * 197 % 3100) - 40) & !15, 256 * j + 32])
            .collect();
        let got = (|| -> Result<Vec<u8>, Error> {
            let src_buffer = device.upload(&src)?;
            let mut dst_buffer = device.upload(&vec![0xeeu8; n])?;
            let moves_buffer = device.upload(&moves)?;
            {
                let from = TensorMap::<[u8; 256]>::new(device, &src_buffer, [n])?;
                let to = TensorMapMut::<[u8; 256]>::new(device, &mut dst_buffer, [n])?;
                program.launch(
                    k::tensor_move_1d_u8,
                    LaunchConfig::new(5, 64),
                    (&from, &to, &moves_buffer),
                )?;
            }
            device.download(&dst_buffer)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected = moved(&src, &[n], &[1], vec![0xee; n], &[n], &[1], &[256], &moves);
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    cases
}

/// Tensor stores from a shared array the threads wrote: transposes through
/// 32 x 32 tiles, with partial tiles at the edges, padded output rows that
/// must stay untouched past the matrix, and blocks that take several tiles
/// (reusing the array once the copy engine has read it).
fn check_transposes(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    for (rows, cols, blocks) in [
        (64usize, 64usize, 4u32),
        (70, 100, 5),
        (37, 260, 3),
        (128, 32, 1),
        (4, 1, 1),
    ] {
        let what = format!("tensor_transpose_f32 {rows} x {cols}, {blocks} blocks");
        let _w = watch(what.clone());
        // The output's rows (the input's columns) are `rows` long; the copy
        // engine stores whole 16-byte pieces, so the map is `pitch` wide and
        // the padding columns receive the tiles' zeros.
        let pitch = rows.next_multiple_of(4);
        let input: Vec<f32> = (0..rows * cols).map(|i| i as f32 * 0.5 - 7.0).collect();
        let sentinel = vec![-1.0f32; cols * pitch];
        let got = (|| -> Result<Vec<f32>, Error> {
            let input_buffer = device.upload(&input)?;
            let mut out_buffer = device.upload(&sentinel)?;
            {
                let out =
                    TensorMapMut::<[[f32; 32]; 32]>::new(device, &mut out_buffer, [cols, pitch])?;
                program.launch(
                    k::tensor_transpose_f32,
                    LaunchConfig::new(blocks, (32, 8)),
                    (&input_buffer, cols as u32, &out),
                )?;
            }
            device.download(&out_buffer)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut expected = sentinel.clone();
        for r in 0..pitch {
            for c in 0..cols {
                expected[c * pitch + r] = if r < rows { input[r * cols + c] } else { 0.0 };
            }
        }
        assert_same_rows(&what, &got, &expected, pitch);
        cases += 1;
    }
    cases
}

/// Bulk tensor reductions from shared arrays: for every operator and
/// element type the copy engine combines, 12 blocks combine their 4 x 32
/// tiles into a 10 x 72 array (pitched rows of 76 elements) at overlapping
/// places, some over the far edges; the padding must stay untouched, and
/// each thread reads its element back while the engine reads the tile.
fn check_reductions(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    macro_rules! case {
        ($kernel:ident, $e:ty, $combine:expr, $value:expr) => {{
            let what = stringify!($kernel).to_string();
            let _w = watch(what.clone());
            let (rows, cols, pitch, blocks) = (10usize, 72usize, 76usize, 12usize);
            let value: fn(u64) -> $e = $value;
            let combine: fn($e, $e) -> $e = $combine;
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = || {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 11
            };
            let values: Vec<$e> = (0..128 * blocks).map(|_| value(next())).collect();
            let step = (16 / core::mem::size_of::<$e>()) as u64;
            let coords: Vec<i32> = (0..blocks)
                .flat_map(|b| match b {
                    0 => [0, 0],
                    1 => [0, 0],
                    2 => [rows as i32 - 2, 60],
                    _ => [(next() % 9) as i32, ((next() % (cols as u64 / step)) * step) as i32],
                })
                .collect();
            let start: Vec<$e> = (0..rows * pitch).map(|_| value(next())).collect();
            let got = (|| -> Result<(Vec<$e>, Vec<$e>), Error> {
                let values_buffer = device.upload(&values)?;
                let coords_buffer = device.upload(&coords)?;
                let mut out_buffer = device.upload(&start)?;
                let mut seen = device.zeros::<$e>(128 * blocks)?;
                {
                    let out = TensorMapMut::<[[$e; 32]; 4]>::new(
                        device,
                        &mut out_buffer,
                        TensorLayout::new([rows, cols]).strides([pitch, 1]),
                    )?;
                    program.launch(
                        k::$kernel,
                        LaunchConfig::new(blocks as u32, (32, 4)),
                        (&values_buffer, &coords_buffer, &out, &mut seen),
                    )?;
                }
                Ok((device.download(&out_buffer)?, device.download(&seen)?))
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mut expected = start.clone();
            for b in 0..blocks {
                let (r0, c0) = (coords[2 * b] as usize, coords[2 * b + 1] as usize);
                for e in 0..128 {
                    let (r, c) = (r0 + e / 32, c0 + e % 32);
                    if r < rows && c < cols {
                        expected[r * pitch + c] = combine(expected[r * pitch + c], values[128 * b + e]);
                    }
                }
            }
            assert_same_rows(&what, &got.0, &expected, pitch);
            assert!(got.1 == values, "{what}: a thread read its tile back wrong while it was stored");
            1
        }};
    }
    case!(tensor_reduce_sum_u32, u32, u32::wrapping_add, |x| x as u32)
        + case!(tensor_reduce_sum_i32, i32, i32::wrapping_add, |x| x as i32)
        + case!(tensor_reduce_sum_u64, u64, u64::wrapping_add, |x| x << 11
            | x >> 42)
        + case!(tensor_reduce_sum_f32, f32, |a, b| a + b, |x| (x % 2001)
            as f32
            - 1000.0)
        + case!(tensor_reduce_min_u32, u32, u32::min, |x| x as u32)
        + case!(tensor_reduce_min_i32, i32, i32::min, |x| x as i32)
        + case!(tensor_reduce_max_u32, u32, u32::max, |x| x as u32)
        + case!(tensor_reduce_max_i32, i32, i32::max, |x| x as i32)
        + case!(tensor_reduce_and_u32, u32, |a, b| a & b, |x| (x as u32)
            | (x >> 32) as u32)
        + case!(tensor_reduce_or_i32, i32, |a, b| a | b, |x| (x as i32)
            & (x >> 32) as i32)
        + case!(tensor_reduce_xor_u64, u64, |a, b| a ^ b, |x| x << 11
            | x >> 42)
        + case!(tensor_reduce_and_u64, u64, |a, b| a & b, |x| !(1u64
            << (x % 64)))
}

/// Bulk tensor reductions from pipeline stages: tiles loaded by the copy
/// engine and added into a second array at overlapping destinations.
fn check_accumulate(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let what = "tensor_accumulate_2d_f32".to_string();
    let _w = watch(what.clone());
    let (src_rows, src_cols) = (40usize, 92usize);
    let (rows, cols, pitch) = (50usize, 72usize, 76usize);
    // Small integers: every order of the additions gives the same sums.
    let src: Vec<f32> = (0..src_rows * src_cols).map(|i| (i % 17) as f32).collect();
    let mut moves = Vec::new();
    for k in 0..23i32 {
        let (r, c) = ((k * 7) % 30 - 4, ((k * 12) % 80 - 8) & !3);
        let (dr, dc) = ((k * 5) % 45, ((k * 20) % 60) & !3);
        moves.extend([r, c, dr, dc]);
    }
    let start = vec![0.5f32; rows * pitch];
    let got = (|| -> Result<Vec<f32>, Error> {
        let src_buffer = device.upload(&src)?;
        let mut dst_buffer = device.upload(&start)?;
        let moves_buffer = device.upload(&moves)?;
        {
            let from =
                TensorMap::<[[f32; 32]; 16]>::new(device, &src_buffer, [src_rows, src_cols])?;
            let to = TensorMapMut::<[[f32; 32]; 16]>::new(
                device,
                &mut dst_buffer,
                TensorLayout::new([rows, cols]).strides([pitch, 1]),
            )?;
            program.launch(
                k::tensor_accumulate_2d_f32,
                LaunchConfig::new(4, 128),
                (&from, &to, &moves_buffer),
            )?;
        }
        device.download(&dst_buffer)
    })()
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut expected = start;
    for m in moves.chunks(4) {
        let tile = reference(
            &src,
            &[src_rows, src_cols],
            &[src_cols, 1],
            &[16, 32],
            &m[..2],
            0.0,
        );
        for (e, v) in tile.into_iter().enumerate() {
            let (r, c) = (m[2] as usize + e / 32, m[3] as usize + e % 32);
            if r < rows && c < cols {
                expected[r * pitch + c] += v;
            }
        }
    }
    assert_same_rows(&what, &got, &expected, pitch);
    1
}

/// Panics naming the first element (row and column of rows of `pitch`)
/// where `got` differs from `expected`.
fn assert_same_rows<E: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[E],
    expected: &[E],
    pitch: usize,
) {
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "{what}: differs from the host first at row {}, column {}: {:?} where the host has {:?}",
            i / pitch,
            i % pitch,
            got[i],
            expected[i]
        );
    }
}

/// Multicast loads: every block of each cluster gets every tile its
/// cluster loads, in clusters of 1 to 4 blocks (3 among them), rings of 2
/// and 3, with and without a lagging block; and every block of a group of
/// the cluster gets its group's tiles, two rings of groups at once.
fn check_multicasts(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    let (rows, cols) = (72usize, 100usize);
    let data: Vec<f32> = (0..rows * cols).map(|i| (i % 997) as f32 - 300.0).collect();
    let tiles = coords(&[rows, cols], &[8, 32], 23, 11, 4);
    for (blocks_a_cluster, clusters, lag) in
        [(1, 3, 0), (2, 3, 0), (4, 2, 0), (4, 3, 3000), (3, 2, 0)]
    {
        let what = format!(
            "tensor_multicast_2d_f32 clusters of {blocks_a_cluster} x {clusters}, lag {lag}"
        );
        let _w = watch(what.clone());
        let got = (|| -> Result<Vec<f32>, Error> {
            let buffer = device.upload(&data)?;
            let at = device.upload(&tiles)?;
            let map = TensorMap::<[[f32; 32]; 8]>::new(device, &buffer, [rows, cols])?;
            let mut out = device.zeros(23 * blocks_a_cluster * 256)?;
            let config = LaunchConfig::new((clusters * blocks_a_cluster) as u32, 128)
                .with_cluster(blocks_a_cluster as u32);
            program.launch(
                k::tensor_multicast_2d_f32,
                config,
                (&map, &at, &mut out, lag),
            )?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let one = reference(&data, &[rows, cols], &[cols, 1], &[8, 32], &tiles, 0.0);
        let expected: Vec<f32> = one
            .chunks(256)
            .flat_map(|tile| (0..blocks_a_cluster).flat_map(move |_| tile.iter().copied()))
            .collect();
        assert!(
            got.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{what}: differs from the host"
        );
        cases += 1;
    }
    let n = 1000usize;
    let bytes: Vec<u8> = (0..n).map(|i| (i * 29 + 3) as u8).collect();
    let tiles = coords(&[n], &[128], 17, 5, 16);
    for (blocks_a_cluster, clusters, lag) in [(2, 2, 0), (3, 1, 2000)] {
        let what = format!(
            "tensor_multicast_1d_u8 clusters of {blocks_a_cluster} x {clusters}, lag {lag}"
        );
        let _w = watch(what.clone());
        let got = (|| -> Result<Vec<u8>, Error> {
            let buffer = device.upload(&bytes)?;
            let at = device.upload(&tiles)?;
            let map = TensorMap::<[u8; 128]>::new(device, &buffer, [n])?;
            let mut out = device.zeros(17 * blocks_a_cluster * 128)?;
            let config = LaunchConfig::new((clusters * blocks_a_cluster) as u32, 64)
                .with_cluster(blocks_a_cluster as u32);
            program.launch(
                k::tensor_multicast_1d_u8,
                config,
                (&map, &at, &mut out, lag),
            )?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let one = reference(&bytes, &[n], &[1], &[128], &tiles, 0u8);
        let expected: Vec<u8> = one
            .chunks(128)
            .flat_map(|tile| (0..blocks_a_cluster).flat_map(move |_| tile.iter().copied()))
            .collect();
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    // Groups of a cluster: rows share `a`'s tiles, columns `b`'s slices
    // (clusters of 2 x 2, 3 x 2, and 1 x 4 and 4 x 1, whose columns or
    // rows are groups of one block).
    let tiles = 5usize;
    for (rows_of, cols, clusters, lag) in [
        (2usize, 2usize, 2usize, 0u32),
        (2, 2, 1, 3000),
        (3, 2, 2, 0),
        (1, 4, 1, 0),
        (4, 1, 2, 2000),
    ] {
        let n = rows_of * cols;
        let what = format!(
            "multicast_rows_and_columns clusters of {rows_of} x {cols} blocks x {clusters}, lag {lag}"
        );
        let _w = watch(what.clone());
        let (a_rows, a_cols) = (8 * tiles, 32 * rows_of);
        let a: Vec<f32> = (0..a_rows * a_cols).map(|e| (e % 1009) as f32).collect();
        let b: Vec<f32> = (0..cols * tiles * 256).map(|e| (e % 113) as f32).collect();
        let got = (|| -> Result<Vec<f32>, Error> {
            let a_buffer = device.upload(&a)?;
            let b_buffer = device.upload(&b)?;
            let map = TensorMap::<[[f32; 32]; 8]>::new(device, &a_buffer, [a_rows, a_cols])?;
            let mut out = device.zeros(clusters * n * tiles * 256)?;
            let config = LaunchConfig::new((clusters * n) as u32, 128).with_cluster(n as u32);
            program.launch(
                k::multicast_rows_and_columns,
                config,
                (&map, &b_buffer, cols as u32, tiles as u32, &mut out, lag),
            )?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        for (at, value) in got.iter().enumerate() {
            let (e, k) = (at % 256, at / 256 % tiles);
            let r = at / 256 / tiles % n;
            let (i, j) = (r / cols, r % cols);
            let expected =
                a[(8 * k + e / 32) * a_cols + 32 * i + e % 32] + 3.0 * b[(j * tiles + k) * 256 + e];
            assert!(
                *value == expected,
                "{what}: block {r} of cluster {}, step {k}, element {e}: {value}, the host has {expected}",
                at / 256 / tiles / n
            );
        }
        cases += 1;
    }
    let input: Vec<u32> = (0..2100u32).map(|i| i.wrapping_mul(2654435761)).collect();
    for (blocks_a_cluster, skip) in [(2usize, 0u32), (4, 52), (2, 1), (3, 4)] {
        let what = format!("slice_multicast_u32 clusters of {blocks_a_cluster}, skip {skip}");
        let _w = watch(what.clone());
        let src = &input[skip as usize..];
        let tiles = src.len().div_ceil(256);
        let got = (|| -> Result<Vec<u32>, Error> {
            let buffer = device.upload(&input)?;
            let mut out = device.zeros(tiles * blocks_a_cluster * 256)?;
            let config = LaunchConfig::new(blocks_a_cluster as u32, 96)
                .with_cluster(blocks_a_cluster as u32);
            program.launch(k::slice_multicast_u32, config, (&buffer, skip, &mut out))?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let expected: Vec<u32> = src
            .chunks(256)
            .flat_map(|tile| {
                (0..blocks_a_cluster).flat_map(move |_| {
                    tile.iter()
                        .copied()
                        .chain(std::iter::repeat_n(0, 256 - tile.len()))
                })
            })
            .collect();
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    cases
}

/// Bulk stores of whole shared arrays: each block's array stored twice,
/// at places that do not overlap (the last at the buffer's end).
fn check_bulk_stores(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let what = "bulk_store_u32".to_string();
    let _w = watch(what.clone());
    let (blocks, n) = (5usize, 1000usize);
    let values: Vec<u32> = (0..64 * blocks as u32)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    // Block b at 64 b + 4 and, for its second store, 936 - 96 b (the last
    // block's ends the buffer at 1000 - 64 = 936 ... its own run).
    let at: Vec<u32> = (0..blocks as u32)
        .flat_map(|b| [64 * b + 4, 936 - 96 * b])
        .collect();
    let start: Vec<u32> = (0..n as u32).map(|i| 0xeee0_0000 | i).collect();
    let got = (|| -> Result<(Vec<u32>, Vec<u32>), Error> {
        let values_buffer = device.upload(&values)?;
        let at_buffer = device.upload(&at)?;
        let mut out = device.upload(&start)?;
        let mut seen = device.zeros::<u32>(64 * blocks)?;
        program.launch(
            k::bulk_store_u32,
            LaunchConfig::new(blocks as u32, 64),
            (&values_buffer, &at_buffer, &mut out, &mut seen),
        )?;
        Ok((device.download(&out)?, device.download(&seen)?))
    })()
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut expected = start;
    for b in 0..blocks {
        for k in 0..2 {
            let a = at[2 * b + k] as usize;
            expected[a..a + 64].copy_from_slice(&values[64 * b..64 * b + 64]);
        }
    }
    assert!(got.0 == expected, "{what}: differs from the host");
    assert!(
        got.1 == values,
        "{what}: a thread read its array back wrong while it was stored"
    );
    1
}

/// Bulk reductions of whole shared arrays, one case a pair of operator
/// and element type: 9 blocks whose runs overlap (two at 0, one at the
/// buffer's end).
fn check_bulk_reductions(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    macro_rules! case {
        ($kernel:ident, $e:ty, $combine:expr, $value:expr) => {{
            let what = stringify!($kernel).to_string();
            let _w = watch(what.clone());
            let (blocks, n) = (9usize, 200usize);
            let value: fn(u64) -> $e = $value;
            let combine: fn($e, $e) -> $e = $combine;
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut next = || {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 11
            };
            let values: Vec<$e> = (0..64 * blocks).map(|_| value(next())).collect();
            let step = (16 / core::mem::size_of::<$e>()) as u64;
            let at: Vec<u32> = (0..blocks)
                .map(|b| match b {
                    0 | 1 => 0,
                    2 => (n - 64) as u32,
                    _ => ((next() % ((n as u64 - 64) / step + 1)) * step) as u32,
                })
                .collect();
            let start: Vec<$e> = (0..n).map(|_| value(next())).collect();
            let got = (|| -> Result<(Vec<$e>, Vec<$e>), Error> {
                let values_buffer = device.upload(&values)?;
                let at_buffer = device.upload(&at)?;
                let mut out = device.upload(&start)?;
                let mut seen = device.zeros::<$e>(64 * blocks)?;
                program.launch(
                    k::$kernel,
                    LaunchConfig::new(blocks as u32, 64),
                    (&values_buffer, &at_buffer, &mut out, &mut seen),
                )?;
                Ok((device.download(&out)?, device.download(&seen)?))
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mut expected = start.clone();
            for b in 0..blocks {
                for e in 0..64 {
                    let i = at[b] as usize + e;
                    expected[i] = combine(expected[i], values[64 * b + e]);
                }
            }
            assert!(got.0 == expected, "{what}: differs from the host");
            assert!(got.1 == values, "{what}: a thread read its array back wrong while it was combined");
            1
        }};
    }
    // Floats: integers small enough that every order of the additions
    // gives the same sum.
    case!(bulk_reduce_sum_u32, u32, u32::wrapping_add, |x| x as u32)
        + case!(bulk_reduce_sum_i32, i32, i32::wrapping_add, |x| x as i32)
        + case!(bulk_reduce_sum_u64, u64, u64::wrapping_add, |x| x << 11
            | x >> 42)
        + case!(
            bulk_reduce_sum_i64,
            i64,
            i64::wrapping_add,
            |x| (x << 11 | x >> 42) as i64
        )
        + case!(bulk_reduce_sum_f32, f32, |a, b| a + b, |x| (x % 2001)
            as f32
            - 1000.0)
        + case!(bulk_reduce_sum_f64, f64, |a, b| a + b, |x| (x % 200001)
            as f64
            - 1e5)
        + case!(bulk_reduce_min_u32, u32, u32::min, |x| x as u32)
        + case!(bulk_reduce_min_i64, i64, i64::min, |x| (x << 11 | x >> 42)
            as i64)
        + case!(bulk_reduce_max_i32, i32, i32::max, |x| x as i32)
        + case!(bulk_reduce_max_u64, u64, u64::max, |x| x << 11 | x >> 42)
        + case!(bulk_reduce_and_u32, u32, |a, b| a & b, |x| (x as u32)
            | (x >> 32) as u32)
        + case!(bulk_reduce_or_i64, i64, |a, b| a | b, |x| (x & (x >> 20))
            as i64)
        + case!(bulk_reduce_xor_u64, u64, |a, b| a ^ b, |x| x << 11
            | x >> 42)
        + case!(bulk_reduce_xor_i32, i32, |a, b| a ^ b, |x| x as i32)
}
