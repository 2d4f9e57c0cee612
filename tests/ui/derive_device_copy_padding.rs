// Padding bytes would carry uninitialised memory to the GPU and back.
use coop::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Tagged {
    pub tag: u8,
    pub value: f64,
}

fn main() {}
