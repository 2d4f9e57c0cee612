//! A user's own struct as kernel input and output: `#[derive(DeviceCopy)]`
//! in the kernel crate, uploaded and downloaded by the host with no other
//! step.

use coop::prelude::*;

/// A body of a simulation: nested arrays, mixed widths, no padding.
#[derive(Clone, Copy, Debug, PartialEq, Default, DeviceCopy)]
#[repr(C)]
pub struct Body {
    /// Position.
    pub position: [f32; 3],
    /// Mass.
    pub mass: f32,
    /// Velocity, in double precision.
    pub velocity: [f64; 3],
    /// An identifier.
    pub id: u64,
}

/// Moves each body by `dt` times its velocity, doubles its id, and writes
/// its momentum's length squared to `energy`.
#[kernel]
pub fn step_bodies(grid: Grid, bodies: &[Body], dt: f32, out: Out<Body>, energy: Out<f64>) {
    let i = grid.thread_rank();
    if i < bodies.len() {
        let mut b = bodies[i];
        for k in 0..3 {
            b.position[k] += dt * b.velocity[k] as f32;
        }
        b.id *= 2;
        let v = b.velocity;
        let m = b.mass as f64;
        energy.write(i, m * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        out.write(i, b);
    }
}
