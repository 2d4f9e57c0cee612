//! `use coop::prelude::*;` brings in everything a kernel usually needs.

pub use crate::{
    kernel, this_grid, this_thread_block, Dim3, Grid, MatchKey, Out, Shuffle, ThreadBlock,
    TiledPartition,
};
