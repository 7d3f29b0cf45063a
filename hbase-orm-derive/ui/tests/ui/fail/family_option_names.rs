// Family option names the derive knows: `time_to_live` (the option's name before it became
// `ttl`) is reported at the option with its new name, and an unknown option gets the nearest
// known one, both by the derive rather than as a missing method of the generated builder call.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "sessions", family = "d", family_options(d(time_to_live = 60)))]
struct Session {
    #[hbase(key)]
    id: u64,
    user: String,
}

#[derive(HBaseEntity)]
#[hbase(
    table = "events",
    family = "d",
    extra_families = "audit",
    family_options(d(max_versions = 2, bloomfilter = "row"), audit(time_to_live))
)]
struct Event {
    #[hbase(key)]
    id: u64,
    kind: String,
}

fn main() {}
