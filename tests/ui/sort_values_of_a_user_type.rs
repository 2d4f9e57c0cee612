// A sort carries values of 4- or 8-byte numbers: a record rides along as
// its index, gathered after the sort, and the error says so.
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
    let mut prices = [2.5f32, 1.0];
    let mut orders = [Order { price: 2.5, quantity: 3 }, Order { price: 1.0, quantity: 9 }];
    sort::pairs(&device, &mut prices[..], &mut orders[..])?;
    Ok(())
}
