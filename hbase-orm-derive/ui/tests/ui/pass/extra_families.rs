// A family kept on purpose without fields of this struct (one another record type of the table
// uses, or one other tools fill) is declared with `extra_families`, and may take options.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(
    table = "devices",
    family = "d",
    extra_families = "audit, raw",
    family_options(d(max_versions = 1), audit(ttl = 86400))
)]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
}

fn main() {
    assert_eq!(Device::FAMILIES, ["d", "audit", "raw"]);
    let audit = &Device::family_descriptors()[1];
    assert_eq!(audit.name, "audit");
    assert_eq!(audit.time_to_live, Some(86400));
}
