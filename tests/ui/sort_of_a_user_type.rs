// coop-host's built-in sorts take keys of the primitive numbers: records
// sort by a key of one of those with their indices as values, and the
// error says so.
use coop::prelude::*;
use coop_host::{sort, Device};

#[derive(Clone, Copy, Debug, Shuffle, DeviceCopy)]
#[repr(C)]
pub struct Order {
    pub price: f32,
    pub quantity: u32,
}

fn main() -> Result<(), coop_host::Error> {
    let device = Device::cpu();
    let mut orders = [Order { price: 2.5, quantity: 3 }, Order { price: 1.0, quantity: 9 }];
    sort::keys(&device, &mut orders[..])?;
    Ok(())
}
