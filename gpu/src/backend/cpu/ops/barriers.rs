//! Barriers as collectives the scheduler completes, and the whole-tile
//! check.

use super::super::Cpu;
use super::super::engine::lane::{self, Op, Request};
use crate::backend::{Barriers, Site};

impl Barriers for Cpu {
    fn sync_block(call: &'static str, site: Site) {
        lane::collective(Op::BlockSync { call }, site);
    }

    fn sync_grid(site: Site) {
        lane::collective(Op::GridSync, site);
    }

    fn sync_cluster(site: Site) {
        lane::collective(Op::ClusterSync, site);
    }

    fn arrive_block(site: Site) {
        lane::arrive_block(site);
    }

    fn wait_block(site: Site) {
        lane::wait_block(site);
    }

    fn arrive_cluster(site: Site) {
        lane::arrive_group("Cluster", site);
    }

    fn wait_cluster(site: Site) {
        lane::wait_group(Op::ClusterSync, "Cluster::barrier_wait", site);
    }

    fn arrive_grid(site: Site) -> u32 {
        lane::arrive_group("CooperativeGrid", site);
        0
    }

    fn wait_grid(_arrival: u32, site: Site) {
        lane::wait_group(Op::GridSync, "CooperativeGrid::barrier_wait", site);
    }

    fn sync_tile(_size_index: u32, _tile: u32, warps: u32, site: Site) {
        lane::collective(
            Op::TileBarrier {
                size: warps * 32,
                uniform: None,
            },
            site,
        );
    }

    fn sync_tile_uniform(
        _size_index: u32,
        _tile: u32,
        warps: u32,
        call: &'static str,
        value: u32,
        site: Site,
    ) {
        lane::collective(
            Op::TileBarrier {
                size: warps * 32,
                uniform: Some((call, value)),
            },
            site,
        );
    }

    fn reset_tile_barrier(_size_index: u32, _tile: u32, _site: Site) {}

    fn sync_warp(mask: u32, site: Site) {
        lane::collective(Op::WarpSync { mask }, site);
    }

    fn tile_created(size: u32, parent_size: u32, site: Site) {
        if !parent_size.is_multiple_of(size) {
            lane::abort(Request::PartialTile {
                size,
                parent_size,
                site,
            });
        }
    }
}
