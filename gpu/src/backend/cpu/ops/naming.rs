//! The collective a thread entered, kept for the scheduler's reports.

use super::super::Cpu;
use super::super::engine::lane;
use crate::backend::{Naming, Site};

impl Naming for Cpu {
    fn entering(call: &'static str, site: Site) {
        lane::name_collective(call, site);
    }
}
