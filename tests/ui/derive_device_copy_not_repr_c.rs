// A struct copied to the GPU must have C's layout: the GPU code and the
// host agree on where each field lies only under #[repr(C)].
use coop::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
pub struct Sample {
    pub value: f32,
    pub weight: f32,
}

fn main() {}
