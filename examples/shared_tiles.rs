//! The shared-memory banks tutorial's 2-D tiles: row- and column-major
//! writes and reads, dynamic shared memory, and padding, with one block of
//! 32 x 32 threads. Checks every kernel's output; on the CPU backend also
//! prints the bank transactions per request of each kernel's shared store
//! and load (1 without conflicts, 32 for a column of an unpadded tile),
//! the figures the profiler reports on a GPU.
//!
//! Run: `cargo run --release --example shared_tiles` (add `-- --cpu` to
//! force the CPU backend, which counts bank transactions)

use coop_examples::checks::shared_tiles::run_shared_tiles;
use coop_examples::{device_from_args, PTX};

fn main() {
    let device = device_from_args();
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        let program = device.load(&PTX)?;
        println!(
            "shared_tiles on {}: one block of 32 x 32 threads",
            device.describe()
        );
        for run in run_shared_tiles(&device, &program)? {
            let banks = run
                .transactions
                .map(|(store, load)| {
                    format!("store {store:4.1}, load {load:4.1} transactions per request")
                })
                .unwrap_or_else(|| "(bank counts: run with --cpu, or ncu)".into());
            let ok = if run.out == run.expected {
                "OK"
            } else {
                "WRONG"
            };
            println!("{:>22}: {ok}, {banks}", run.name);
            if run.out != run.expected {
                return Err(format!("{} wrote the wrong values", run.name).into());
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("shared_tiles: {e}");
        std::process::exit(1);
    }
}
