//! Tables named by period: a table-name template such as `tx_{yyyyMMdd}` rendered for a time
//! ([`render_table_template`]), the start of the period a rendered name covers
//! ([`table_template_start`]) and the length of that period when it is fixed
//! ([`template_period_ms`]). All dates are UTC, proleptic Gregorian.

/// The start (milliseconds since the epoch, UTC) of the period a table rendered from
/// `template` covers: `tx_20261121` from `tx_{yyyyMMdd}` starts at 2026-11-21T00:00Z. `None`
/// when `table` does not fit the template. Fields the template lacks count from their start
/// (a `{yyyyMM}` table starts on day 1).
///
/// ```
/// use hbase_orm::{render_table_template, table_template_start};
///
/// let ms = 1_795_239_520_000; // 2026-11-21T05:38:40Z
/// let table = render_table_template("tx_{yyyyMMdd}", ms);
/// assert_eq!(table_template_start("tx_{yyyyMMdd}", &table), Some(ms - ms % 86_400_000));
/// assert_eq!(table_template_start("tx_{yyyyMMdd}", "tx_2026"), None);
/// ```
pub fn table_template_start(template: &str, table: &str) -> Option<i64> {
    let (mut year, mut month, mut day, mut hour) = (1970i64, 1i64, 1i64, 0i64);
    let (mut t, mut n) = (template, table);
    while !t.is_empty() {
        let placeholder = [
            ("{yyyyMMddHH}", 10),
            ("{yyyyMMdd}", 8),
            ("{yyyyMM}", 6),
            ("{yyyy}", 4),
            ("{MM}", 2),
            ("{dd}", 2),
            ("{HH}", 2),
        ]
        .into_iter()
        .find(|(p, _)| t.starts_with(p));
        match placeholder {
            Some((p, width)) => {
                let digits = n.get(..width)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let num = |r: std::ops::Range<usize>| digits[r].parse::<i64>().ok();
                match p {
                    "{yyyyMMddHH}" | "{yyyyMMdd}" | "{yyyyMM}" | "{yyyy}" => {
                        year = num(0..4)?;
                        if width >= 6 {
                            month = num(4..6)?;
                        }
                        if width >= 8 {
                            day = num(6..8)?;
                        }
                        if width >= 10 {
                            hour = num(8..10)?;
                        }
                    }
                    "{MM}" => month = num(0..2)?,
                    "{dd}" => day = num(0..2)?,
                    _ => hour = num(0..2)?,
                }
                t = &t[p.len()..];
                n = &n[width..];
            }
            None => {
                let c = t.chars().next()?;
                n = n.strip_prefix(c)?;
                t = &t[c.len_utf8()..];
            }
        }
    }
    if !n.is_empty() || !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 {
        return None;
    }
    // A civil date to days since 1970-01-01 (proleptic Gregorian).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400_000 + hour * 3_600_000)
}

/// The length in milliseconds of the period one table of `template` covers, when it is fixed:
/// an hour (`{HH}`), a day (`{dd}`, `{yyyyMMdd}`); `None` for months and years. The derive
/// checks with it that a time part keeping only the time within a period (`MillisOfDay`)
/// sits in tables no longer than that period.
///
/// ```
/// assert_eq!(hbase_orm::template_period_ms("tx_{yyyyMMdd}"), Some(86_400_000));
/// assert_eq!(hbase_orm::template_period_ms("tx_{yyyyMM}"), None);
/// ```
pub const fn template_period_ms(template: &str) -> Option<i64> {
    const fn contains(hay: &[u8], needle: &[u8]) -> bool {
        let mut i = 0;
        while i + needle.len() <= hay.len() {
            let mut j = 0;
            while j < needle.len() && hay[i + j] == needle[j] {
                j += 1;
            }
            if j == needle.len() {
                return true;
            }
            i += 1;
        }
        false
    }
    let t = template.as_bytes();
    if contains(t, b"HH}") {
        Some(3_600_000)
    } else if contains(t, b"dd}") {
        Some(86_400_000)
    } else {
        None
    }
}

/// Renders a table-name template for a time in milliseconds since the epoch (UTC):
/// `{yyyy}`, `{MM}`, `{dd}`, `{HH}` and the combinations `{yyyyMMdd}`, `{yyyyMM}`,
/// `{yyyyMMddHH}` are replaced; other text is kept.
///
/// ```
/// // 2026-11-21T05:38:40Z
/// assert_eq!(hbase_orm::render_table_template("tx_{yyyyMMdd}", 1_795_239_520_000), "tx_20261121");
/// ```
pub fn render_table_template(template: &str, millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let hour = millis.rem_euclid(86_400_000) / 3_600_000;
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    template
        .replace(
            "{yyyyMMddHH}",
            &format!("{year:04}{month:02}{day:02}{hour:02}"),
        )
        .replace("{yyyyMMdd}", &format!("{year:04}{month:02}{day:02}"))
        .replace("{yyyyMM}", &format!("{year:04}{month:02}"))
        .replace("{yyyy}", &format!("{year:04}"))
        .replace("{MM}", &format!("{month:02}"))
        .replace("{dd}", &format!("{day:02}"))
        .replace("{HH}", &format!("{hour:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_render_utc_dates() {
        assert_eq!(render_table_template("t_{yyyyMMdd}", 0), "t_19700101");
        assert_eq!(
            render_table_template("t_{yyyyMMddHH}", 951_782_400_000 + 3_600_000),
            "t_2000022901"
        );
        assert_eq!(render_table_template("{yyyy}-{MM}-{dd}", -1), "1969-12-31");
        assert_eq!(render_table_template("plain", 5), "plain");
    }
}
