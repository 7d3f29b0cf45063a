// Typed handles make a wrong field a compile error: an increment or a counter read takes only
// a counter's handle, and a misspelled handle does not exist.
use hbase_orm::{HBaseEntity, Repository};

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d")]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
    count: i64,
    #[hbase(counter)]
    messages: i64,
}

async fn misuse(devices: Repository<Device>) -> hbase_orm::Result<()> {
    let key = DeviceKey { id: 1 };
    devices.increment(&key, Device::LABEL, 1).await?;
    devices.increment(&key, Device::COUNT, 1).await?;
    devices.counter(&key, Device::COUNT).await?;
    devices.get_fields(&key, (Device::LABEL, Device::MESAGES)).await?;
    Ok(())
}

fn main() {
    let _ = misuse;
}
