//! Inboxes: shared arrays the other blocks of the cluster send whole arrays
//! into, or combine arrays into, by the copy engine (`coop::shared::Inbox`).
//! `coop_tests::inbox_cases` has the host references. Every kernel runs
//! rounds on a 1-D grid of clusters, blocks of 64 threads (128 for the 2-D
//! arrays), and writes what each block's inbox received in each round.

use coop::prelude::*;
use coop::shared::{ByRank, Inbox, RowMajor, Shared};

/// One kernel a pair of operator and element type the engine combines in
/// shared memory. Round `k`: block `b` (of the grid) writes
/// `values[(k blocks + b) 64 ..]` into its array and combines it into the
/// inbox of block `targets[k]` of its cluster, which expects every block's
/// array (the others expect none) and writes what landed to
/// `out[(k clusters + c) 64 ..]`, `c` its cluster.
macro_rules! inbox_reductions {
    ($($name:ident: $e:ty, $op:expr;)*) => {$(
        #[kernel]
        pub fn $name(
            cluster: Cluster,
            block: ThreadBlock,
            values: &[$e],
            targets: &[u32],
            out: Out<$e>,
            mine: Shared<[$e; 64]>,
            inbox: Inbox<[$e; 64]>,
        ) {
            let (r, n) = (cluster.block_rank(), cluster.num_blocks());
            let b = block.group_index().x as usize;
            let blocks = this_grid().num_blocks();
            let (c, clusters) = (b / n as usize, blocks / n as usize);
            let t = block.thread_rank() as usize;
            let expect = |k: usize| if targets[k] == r { n } else { 0 };
            let own = mine.own(ByRank::new());
            own.set(values[b * 64 + t]);
            let mut sent = own.publish(&block);
            let mut exchange = inbox.open_reduce(&cluster, &block, $op, expect(0));
            exchange.reduce(&block, targets[0], &sent);
            let mut got = exchange.wait(&cluster, &block);
            for k in 0..targets.len() {
                if targets[k] == r {
                    out.write((k * clusters + c) * 64 + t, got.get(t));
                }
                if k + 1 == targets.len() {
                    break;
                }
                let next = sent.own(&block, ByRank::new());
                next.set(values[((k + 1) * blocks + b) * 64 + t]);
                sent = next.publish(&block);
                let mut exchange = got.reopen(&cluster, &block, expect(k + 1));
                exchange.reduce(&block, targets[k + 1], &sent);
                got = exchange.wait(&cluster, &block);
            }
        }
    )*};
}
inbox_reductions! {
    inbox_reduce_sum_u32: u32, op::Sum;
    inbox_reduce_sum_i32: i32, op::Sum;
    inbox_reduce_sum_u64: u64, op::Sum;
    inbox_reduce_sum_i64: i64, op::Sum;
    inbox_reduce_min_i32: i32, op::Min;
    inbox_reduce_max_u32: u32, op::Max;
    inbox_reduce_and_u32: u32, op::BitAnd;
    inbox_reduce_or_i32: i32, op::BitOr;
    inbox_reduce_xor_u32: u32, op::BitXor;
}

/// Every block combines its array `values[b 64 ..]` into every block's
/// inbox of the cluster (itself included) with the maximum, one after
/// another in the order of `order` (ranks, one round): every inbox expects
/// the cluster's blocks and writes what landed to `out[b 64 ..]`.
#[kernel]
pub fn inbox_all_max_i32(
    cluster: Cluster,
    block: ThreadBlock,
    values: &[i32],
    order: &[u32],
    out: Out<i32>,
    mine: Shared<[i32; 64]>,
    inbox: Inbox<[i32; 64]>,
) {
    let n = cluster.num_blocks();
    let b = block.group_index().x as usize;
    let t = block.thread_rank() as usize;
    let own = mine.own(ByRank::new());
    own.set(values[b * 64 + t]);
    let sent = own.publish(&block);
    let mut exchange = inbox.open_reduce(&cluster, &block, op::Max, n);
    for &rank in order {
        exchange.reduce(&block, rank, &sent);
    }
    let got = exchange.wait(&cluster, &block);
    out.write(b * 64 + t, got.get(t));
}

/// Rounds of copies of 8 x 16 tiles of floats (512 bytes), blocks of 16 x 8:
/// in round `k` block `r` of each cluster sends the tile it holds to block
/// `(r + shifts[k]) % n` (itself for a shift of 0) and then holds what it
/// received, which it writes to `out[(k blocks + b) 128 ..]`. Round 0's
/// tile is `values[b 128 ..]`.
#[kernel]
pub fn inbox_pass_2d_f32(
    cluster: Cluster,
    block: ThreadBlock,
    values: &[f32],
    shifts: &[u32],
    out: Out<f32>,
    held: Shared<[[f32; 16]; 8]>,
    inbox: Inbox<[[f32; 16]; 8]>,
) {
    let (r, n) = (cluster.block_rank(), cluster.num_blocks());
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks();
    let t = block.thread_rank() as usize;
    let own = held.own(RowMajor);
    own.write(own.mine(), values[b * 128 + t]);
    let mut tile = own.publish(&block);
    let mut exchange = inbox.open(&cluster, &block, 1);
    exchange.send(&block, (r + shifts[0]) % n, &tile);
    let mut got = exchange.wait(&cluster, &block);
    for k in 0..shifts.len() {
        let x = got.get((t / 16, t % 16));
        out.write((k * blocks + b) * 128 + t, x);
        let next = tile.own(&block, RowMajor);
        next.write(next.mine(), x);
        tile = next.publish(&block);
        if k + 1 == shifts.len() {
            break;
        }
        let mut exchange = got.reopen(&cluster, &block, 1);
        exchange.send(&block, (r + shifts[k + 1]) % n, &tile);
        got = exchange.wait(&cluster, &block);
    }
}

/// What `inbox_misused` does, by its `case`.
pub mod misuse {
    /// Block 0's inbox expects `n` arrays, and every block combines one
    /// into it: with more expected than sent the wait can never end (the
    /// CPU backend reports it; a GPU hangs), with fewer the arrays past the
    /// count land in a round that expects none.
    pub const EXPECTS: u32 = 0;
    /// Every block sends its array into block 0's copy inbox, which takes
    /// one a round: the arrays would land over each other.
    pub const TWO_COPIES: u32 = 1;
    /// Every block combines its array into block `n`'s inbox, which may be
    /// outside the cluster.
    pub const INTO_RANK: u32 = 2;
    /// Every block combines its array into its own inbox twice in a round.
    pub const OWN_TWICE: u32 = 3;
}

/// The misuses of a round of inboxes (`misuse`), each block's array all 7s;
/// every thread writes its element of its block's inbox after the round.
#[kernel]
pub fn inbox_misused(
    cluster: Cluster,
    block: ThreadBlock,
    case: u32,
    n: u32,
    out: Out<u32>,
    mine: Shared<[u32; 64]>,
    inbox: Inbox<[u32; 64]>,
) {
    let (r, blocks) = (cluster.block_rank(), cluster.num_blocks());
    let own = mine.own(ByRank::new());
    own.set(7);
    let sent = own.publish(&block);
    let got = if case == misuse::TWO_COPIES {
        let mut exchange = inbox.open(&cluster, &block, (r == 0) as u32);
        exchange.send(&block, 0, &sent);
        exchange.wait(&cluster, &block).into_published()
    } else {
        let (to, expect) = match case {
            misuse::EXPECTS => (0, if r == 0 { n } else { 0 }),
            misuse::INTO_RANK => (n, if r == n { blocks } else { 0 }),
            _ => (r, 2),
        };
        let mut exchange = inbox.open_reduce(&cluster, &block, op::Sum, expect);
        exchange.reduce(&block, to, &sent);
        if case == misuse::OWN_TWICE {
            exchange.reduce(&block, to, &sent);
        }
        exchange.wait(&cluster, &block).into_published()
    };
    let t = block.thread_rank() as usize;
    out.write(this_grid().thread_rank(), got.get(t));
}
