// Options for a family no field is stored in: a typo (`dd` for `d`) would leave `d` without
// its options and create a stray family, so it is an error with the likely name.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d", family_options(dd(max_versions = 3)))]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
}

// An extra family must not be one the fields use.
#[derive(HBaseEntity)]
#[hbase(table = "sensors", family = "d", extra_families = "d")]
struct Sensor {
    #[hbase(key)]
    id: u64,
    label: String,
}

fn main() {}
