//! A loop over a thread's items written out item by item.

/// `$body` with `$i` bound to each of `0..$n` in turn (`$n` a constant
/// where it is used), written out for up to 32 items rather than looped:
/// LLVM does not unroll a loop whose body is large, and an array of items
/// indexed by a loop counter would live in local memory. More than 32
/// items loop.
macro_rules! for_items {
    ($i:ident < $n:expr => $body:block) => {{
        if $n <= 32 {
            $crate::block::items::for_items!(@ $i, $n, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
                16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
        } else {
            #[allow(clippy::needless_range_loop)]
            for $i in 0..$n $body
        }
    }};
    (@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{$(
        {
            let $i: usize = $k;
            if $i < $n $body
        }
    )*}};
}
pub(crate) use for_items;
