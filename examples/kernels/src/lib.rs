//! Kernels of the examples. Compiled for `nvptx64-nvidia-cuda` by the
//! examples' build script, and for the host, where each `#[kernel]` is the
//! typed descriptor the examples launch.
#![no_std]

pub mod bench;
pub mod cg_samples;
pub mod conjugate_gradient;
pub mod dot;
pub mod grid_sync;
pub mod histogram;
pub mod integral_image;
pub mod multicast;
pub mod shared_tiles;
pub mod split_barrier;
pub mod stencil;
pub mod streaming;
pub mod sum;
pub mod tile_sort;
pub mod tiles;
pub mod transpose;
pub mod warp_vote;
pub mod wide_histogram;
