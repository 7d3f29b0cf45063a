//! `Admin::ensure::<T>()`: the schema an entity declares, made real. It lives with the
//! entities (the client's `Admin` knows tables, not entities).

use crate::client::Admin;
use crate::entity::HBaseEntity;
use crate::model::{Error, Result};
use crate::schema::EnsureReport;

impl Admin {
    /// Creates or updates the table entity `T` declares (see [`Admin::ensure_schema`]).
    pub async fn ensure<T: HBaseEntity>(&self) -> Result<EnsureReport> {
        if T::TABLE_IS_TEMPLATE {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{} is stored in one table per {}: ensure the table of a key with \
                     admin.ensure_for::<T>(&key)",
                    std::any::type_name::<T>(),
                    T::TABLE
                ),
            });
        }
        let mut report = self.ensure_schema(&T::schema()).await?;
        for related in T::related_schemas() {
            report
                .related_tables
                .push(self.ensure_schema(&related).await?);
        }
        Ok(report)
    }

    /// [`Admin::ensure`] for the table a templated entity (one table per day, say) uses for
    /// `key`.
    pub async fn ensure_for<T: HBaseEntity>(&self, key: &T::Key) -> Result<EnsureReport> {
        self.ensure_schema(&T::schema_for(T::table_for_key(key)))
            .await
    }
}
