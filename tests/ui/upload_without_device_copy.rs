// Uploading a struct that does not derive DeviceCopy: the error says how
// to make it uploadable.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

fn main() {
    let device = coop_host::Device::cpu();
    let _ = device.upload(&[Point { x: 1.0, y: 2.0 }]);
}
