//! The plan of an `INSERT INTO` an entity table, as the table's sink wants it: [`InsertPlan`],
//! the analyzer rule that lets the rows reach the sink as the query made them, whatever their
//! nullability and types, so that a NULL where the entity needs a value, or a value that does
//! not convert to its column's type, is refused by the sink naming the table, the row and the
//! field, instead of by DataFusion naming a column of the `VALUES` list (`column5`) or a
//! value and no row.

use std::sync::Arc;

use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result as DfResult};
use datafusion::config::ConfigOptions;
use datafusion::logical_expr::expr::{Alias, Cast};
use datafusion::logical_expr::{DmlStatement, Expr, LogicalPlan, Projection, Values, WriteOp};
use datafusion::optimizer::AnalyzerRule;
use datafusion::prelude::SessionContext;

use crate::schema::ENTITY_METADATA;

/// The rule's name, by which [`add_to`] finds it already there.
const NAME: &str = "hbase_orm_insert_plan";

/// Rewrites the input of an `INSERT INTO` an entity table (a table whose schema names its
/// entity, [`ENTITY_METADATA`]): its `VALUES` lists to nullable columns (DataFusion types a
/// `VALUES` list by the table's columns, nullability included, and refuses a NULL in a column
/// that is not nullable while building the list, before the table sees it), and the casts to
/// the table's types it puts over the query's columns taken off (the sink casts each column
/// itself, and names the row of a value that does not convert).
#[derive(Debug)]
pub(crate) struct InsertPlan;

/// Adds [`InsertPlan`] to `ctx` once.
pub(crate) fn add_to(ctx: &SessionContext) {
    if !ctx
        .state()
        .analyzer()
        .rules
        .iter()
        .any(|rule| rule.name() == NAME)
    {
        ctx.add_analyzer_rule(Arc::new(InsertPlan));
    }
}

/// `schema` with every column nullable (its metadata kept).
pub(crate) fn nullable(schema: &Schema) -> Schema {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

impl AnalyzerRule for InsertPlan {
    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> DfResult<LogicalPlan> {
        plan.transform_down(|node| match node {
            LogicalPlan::Dml(dml)
                if matches!(dml.op, WriteOp::Insert(_))
                    && dml.target.schema().metadata().contains_key(ENTITY_METADATA) =>
            {
                let input = Arc::unwrap_or_clone(dml.input).transform_up(relax)?.data;
                let input = uncast(input)?;
                let dml = DmlStatement::new(dml.table_name, dml.target, dml.op, Arc::new(input));
                Ok(Transformed::yes(LogicalPlan::Dml(dml)))
            }
            other => Ok(Transformed::no(other)),
        })
        .map(|done| done.data)
    }

    fn name(&self) -> &str {
        NAME
    }
}

/// A `VALUES` list made nullable; any other node's schema computed again from its inputs.
fn relax(node: LogicalPlan) -> DfResult<Transformed<LogicalPlan>> {
    match node {
        LogicalPlan::Values(values) if values.schema.fields().iter().any(|f| !f.is_nullable()) => {
            let arrow: SchemaRef = Arc::new(nullable(values.schema.as_arrow()));
            let qualified = values.schema.iter().map(|(q, _)| q.cloned()).collect();
            let schema = DFSchema::from_field_specific_qualified_schema(qualified, &arrow)?;
            Ok(Transformed::yes(LogicalPlan::Values(Values {
                schema: Arc::new(schema),
                values: values.values,
            })))
        }
        other => other.recompute_schema().map(Transformed::yes),
    }
}

/// The projection DataFusion puts over an insert's query (each column cast to the table's
/// type, named as the table's column) without its casts.
fn uncast(input: LogicalPlan) -> DfResult<LogicalPlan> {
    let LogicalPlan::Projection(projection) = input else {
        return Ok(input);
    };
    let exprs = projection
        .expr
        .into_iter()
        .map(|expr| match expr {
            Expr::Alias(Alias {
                expr,
                relation,
                name,
                metadata,
            }) => match *expr {
                Expr::Cast(Cast { expr, .. }) => Expr::Alias(Alias {
                    expr,
                    relation,
                    name,
                    metadata,
                }),
                other => Expr::Alias(Alias {
                    expr: Box::new(other),
                    relation,
                    name,
                    metadata,
                }),
            },
            other => other,
        })
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(
        exprs,
        projection.input,
    )?))
}
