use coop_host::{Device, LaunchConfig};
use user_kernels::{block_sums, saxpy};

static PTX: coop_host::PtxSet = coop_host::include_ptx!("user-kernels");

fn main() -> Result<(), coop_host::Error> {
    assert!(PTX.targets().count() > 0);
    let device = Device::cpu();
    let program = device.load(&PTX)?;
    let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let y = vec![1.0f32; 1000];
    let (dx, dy) = (device.upload(&x)?, device.upload(&y)?);
    let mut out = device.zeros::<f32>(1000)?;
    program.launch(saxpy, LaunchConfig::new(4, 256), (2.0f32, &dx, &dy, &mut out))?;
    let out = device.download(&out)?;
    assert_eq!(out[999], 2.0 * 999.0 + 1.0);
    let mut sums = device.zeros::<f32>(4)?;
    program.launch(block_sums, LaunchConfig::new(4, 256), (&dx, &mut sums))?;
    let sums = device.download(&sums)?;
    assert_eq!(sums.iter().sum::<f32>(), (0..1000).sum::<i32>() as f32);
    // The PTX was built by coop-build from the packaged coop-gpu.
    let sm80 = PTX.get(80).expect("PTX for sm_80");
    assert!(sm80.contains(".entry saxpy"), "no saxpy entry in the PTX");
    println!("user project: saxpy and block sums on {}, PTX built for {:?}", device.describe(), PTX.targets().collect::<Vec<_>>());
    Ok(())
}
