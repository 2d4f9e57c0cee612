// Every field must itself be plain data: a `char` can hold byte patterns
// that are not characters.
use coop::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Glyph {
    pub code: char,
    pub width: u32,
}

fn main() {}
