//! The warp functions of the warp functions and cooperative groups
//! tutorial: `ballot`, `any`, `all`, and the four shuffles with the width
//! rule, checked against CUDA's definitions computed on the host. Prints
//! the first warp's values.
//!
//! Run: `cargo run --release --example warp_vote` (add `-- --cpu` to force
//! the CPU backend)

use coop_examples::checks::warp_vote::{run_warp_vote, warp_vote_input};
use coop_examples::kernels::warp_vote::FIELDS;
use coop_examples::{device_from_args, PTX};

fn main() {
    let device = device_from_args();
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        let program = device.load(&PTX)?;
        let input = warp_vote_input(256);
        let (got, want) = run_warp_vote(&device, &program, &input)?;
        println!("warp_vote on {}: 256 threads", device.describe());
        let names = [
            "ballot(v > 0)",
            "any(v == 0)",
            "all(v < 100)",
            "shfl(v, 0), width 8",
            "shfl_up(v, 2), width 16",
            "shfl_down(v, 2), width 16",
            "shfl_xor(v, 1)",
            "warp sum (butterfly)",
        ];
        println!("input of warp 0: {:?}", &input[..32]);
        for (k, name) in names.iter().enumerate() {
            let lanes: Vec<u32> = (0..8).map(|l| got[l * FIELDS + k]).collect();
            println!("{name:>26}: lanes 0-7 {lanes:?}");
        }
        if got != want {
            let bad = got.iter().zip(&want).position(|(g, w)| g != w).unwrap();
            return Err(format!(
                "thread {} field {}: {} instead of {}",
                bad / FIELDS,
                bad % FIELDS,
                got[bad],
                want[bad]
            )
            .into());
        }
        println!("warp_vote: OK ({} values match)", got.len());
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("warp_vote: {e}");
        std::process::exit(1);
    }
}
