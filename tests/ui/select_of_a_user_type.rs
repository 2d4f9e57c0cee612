// coop-host's built-in selections are of the primitive numbers: selecting
// structs by flags needs a kernel of yours, and the error says which.
use coop::prelude::*;
use coop_host::{select, Device};

#[derive(Clone, Copy, Debug, Shuffle, DeviceCopy)]
#[repr(C)]
pub struct Particle {
    pub x: f32,
    pub v: f32,
}

fn main() -> Result<(), coop_host::Error> {
    let device = Device::cpu();
    let particles = [Particle { x: 0.0, v: 1.0 }, Particle { x: 2.0, v: -1.0 }];
    let inside = [true, false];
    let mut kept = [Particle { x: 0.0, v: 0.0 }; 2];
    let n = select::flagged(&device, &particles[..], &inside[..], &mut kept[..])?;
    println!("{n}");
    Ok(())
}
