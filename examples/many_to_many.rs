//! Many-to-many relations without joins: students and courses, persons and roles.
//!
//! Each side is its own table keyed by its id. Besides its own columns (family `d`), a row keeps
//! the ids of the rows it is linked to in a family of their own, one cell per link (a `wide`
//! map: `c:<course id> = <course title>`), holding a copy of the other side's name so a list
//! prints without reading the other table. Adding or removing a link writes both rows; listing
//! either side is one read of one row.
//!
//! Students and courses get sequential ids (20110008, 20110009, ...), so their keys are the ids
//! reversed (`key(reversed)`): consecutive ids then differ in their first byte and new rows
//! spread over the key space instead of all landing at its end. Persons and roles are keyed by
//! their plain ids, as small reference tables.
//!
//! The trade-off: a link is two writes to two rows, and HBase is atomic per row only. A failure
//! between them leaves a link known to one side; both writes are idempotent, so retrying
//! repairs it, and the program checks after every step that the two sides agree. Reversed keys
//! also give up scans in id order (no "every student of 2011" prefix), and a copied name must
//! be rewritten in every linked row when it changes (shown with a course renamed).
//!
//!     hbase-local/hbase.sh up && cargo run --example many_to_many
//!
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store). The tables
//! `example:many_to_many_*` are recreated from the entities' declarations at the start of every
//! run and left for inspection.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity, Repository, Result};
use hbase_orm_suite::example::Example;

/// A student: row key `[id reversed]`; the courses taken in family `c` (course id -> title).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "many_to_many_students", family = "d")]
struct Student {
    #[hbase(key(reversed))]
    id: String,
    name: String,
    age: u8,
    #[hbase(family = "c", wide)]
    courses: BTreeMap<String, String>,
}

/// A course: row key `[id reversed]`; the students enrolled in family `s` (student id -> name).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "many_to_many_courses", family = "d")]
struct Course {
    #[hbase(key(reversed))]
    id: String,
    title: String,
    teacher: String,
    #[hbase(family = "s", wide)]
    students: BTreeMap<String, String>,
}

/// A person: row key `[pid]`; the roles held in family `r` (role id -> role name).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "many_to_many_persons", family = "d")]
struct Person {
    #[hbase(key)]
    pid: u32,
    name: String,
    #[hbase(family = "r", wide)]
    roles: BTreeMap<u32, String>,
}

/// A role: row key `[rid]`; its members in family `p` (person id -> name).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "many_to_many_roles", family = "d")]
struct Role {
    #[hbase(key)]
    rid: u32,
    name: String,
    #[hbase(family = "p", wide)]
    members: BTreeMap<u32, String>,
}

/// The two tables of students and courses, kept in step.
struct Enrolments {
    students: Repository<Student>,
    courses: Repository<Course>,
}

impl Enrolments {
    /// Links a student and a course: one cell in each row, written concurrently.
    async fn enroll(&self, s: &Student, c: &Course) -> Result<()> {
        let on_student = self.students.wide(Student::COURSES);
        let on_course = self.courses.wide(Course::STUDENTS);
        let (sk, ck) = (s.key(), c.key());
        tokio::try_join!(
            on_student.put(&sk, &c.id, &c.title),
            on_course.put(&ck, &s.id, &s.name),
        )?;
        Ok(())
    }

    /// Unlinks them: the cell on each side removed.
    async fn drop_course(&self, s: &Student, c: &Course) -> Result<()> {
        let on_student = self.students.wide(Student::COURSES);
        let on_course = self.courses.wide(Course::STUDENTS);
        let (sk, ck) = (s.key(), c.key());
        tokio::try_join!(on_student.remove(&sk, &c.id), on_course.remove(&ck, &s.id))?;
        Ok(())
    }

    /// Deletes a student: first out of every course's list (read from the student's own
    /// row), then the row.
    async fn delete_student(&self, id: &str) -> Result<()> {
        let key = StudentKey { id: id.into() };
        let on_course = self.courses.wide(Course::STUDENTS);
        let taken = self
            .students
            .wide(Student::COURSES)
            .slice(&key)
            .fetch()
            .await?;
        for (course, _) in taken.entries {
            on_course.remove(&CourseKey { id: course }, &key.id).await?;
        }
        self.students.delete(&key).await
    }

    /// Renames a course: its own row, then the copy of the title in each enrolled student's
    /// row (the cost of keeping copies: one write per link).
    async fn rename_course(&self, id: &str, title: &str) -> Result<()> {
        let key = CourseKey { id: id.into() };
        let Some(mut c) = self.courses.get(&key).await? else {
            return Ok(());
        };
        c.title = title.into();
        // The value read holds the whole student map, so saving it keeps every link.
        self.courses.save(&c).await?;
        let on_student = self.students.wide(Student::COURSES);
        for s in c.students.keys() {
            on_student
                .put(&StudentKey { id: s.clone() }, &c.id, &c.title)
                .await?;
        }
        Ok(())
    }

    /// The course ids of a student, from the student's row only.
    async fn courses_of(&self, id: &str) -> Result<Vec<String>> {
        let key = StudentKey { id: id.into() };
        let page = self
            .students
            .wide(Student::COURSES)
            .slice(&key)
            .fetch()
            .await?;
        Ok(page.entries.into_iter().map(|(c, _)| c).collect())
    }

    /// The student ids of a course, from the course's row only.
    async fn students_of(&self, id: &str) -> Result<Vec<String>> {
        let key = CourseKey { id: id.into() };
        let page = self
            .courses
            .wide(Course::STUDENTS)
            .slice(&key)
            .fetch()
            .await?;
        Ok(page.entries.into_iter().map(|(s, _)| s).collect())
    }

    /// Every link as each side records it, `(student, course, course title copy, student
    /// name copy)`, plus the copies checked against the other row's own columns.
    async fn both_sides(&self) -> Result<(Links, Links)> {
        let students: Vec<Student> = self.students.scan().stream().try_collect().await?;
        let courses: Vec<Course> = self.courses.scan().stream().try_collect().await?;
        let name_of: BTreeMap<_, _> = students.iter().map(|s| (s.id.clone(), &s.name)).collect();
        let title_of: BTreeMap<_, _> = courses.iter().map(|c| (c.id.clone(), &c.title)).collect();
        let mut from_students = Links::new();
        for s in &students {
            for (c, title) in &s.courses {
                let copies_match = title_of.get(c) == Some(&title);
                from_students.insert((s.id.clone(), c.clone(), copies_match));
            }
        }
        let mut from_courses = Links::new();
        for c in &courses {
            for (s, name) in &c.students {
                let copies_match = name_of.get(s) == Some(&name);
                from_courses.insert((s.clone(), c.id.clone(), copies_match));
            }
        }
        Ok((from_students, from_courses))
    }
}

/// Links as one side records them: `(left id, right id, the copied name is current)`.
type Links = BTreeSet<(String, String, bool)>;

/// The two tables of persons and roles, kept in step.
struct Memberships {
    persons: Repository<Person>,
    roles: Repository<Role>,
}

impl Memberships {
    async fn grant(&self, p: &Person, r: &Role) -> Result<()> {
        let roles_of = self.persons.wide(Person::ROLES);
        let members_of = self.roles.wide(Role::MEMBERS);
        let (pk, rk) = (p.key(), r.key());
        tokio::try_join!(
            roles_of.put(&pk, &r.rid, &r.name),
            members_of.put(&rk, &p.pid, &p.name),
        )?;
        Ok(())
    }

    async fn revoke(&self, p: &Person, r: &Role) -> Result<()> {
        let roles_of = self.persons.wide(Person::ROLES);
        let members_of = self.roles.wide(Role::MEMBERS);
        let (pk, rk) = (p.key(), r.key());
        tokio::try_join!(roles_of.remove(&pk, &r.rid), members_of.remove(&rk, &p.pid))?;
        Ok(())
    }

    /// Every link as each side records it (the copied names checked as above).
    async fn both_sides(&self) -> Result<(Links, Links)> {
        let persons: Vec<Person> = self.persons.scan().stream().try_collect().await?;
        let roles: Vec<Role> = self.roles.scan().stream().try_collect().await?;
        let person_name: BTreeMap<_, _> = persons.iter().map(|p| (p.pid, &p.name)).collect();
        let role_name: BTreeMap<_, _> = roles.iter().map(|r| (r.rid, &r.name)).collect();
        let from_persons = persons
            .iter()
            .flat_map(|p| {
                p.roles.iter().map(|(rid, name)| {
                    let current = role_name.get(rid) == Some(&name);
                    (pid_text(p.pid), rid.to_string(), current)
                })
            })
            .collect();
        let from_roles = roles
            .iter()
            .flat_map(|r| {
                r.members.iter().map(|(pid, name)| {
                    let current = person_name.get(pid) == Some(&name);
                    (pid_text(*pid), r.rid.to_string(), current)
                })
            })
            .collect();
        Ok((from_persons, from_roles))
    }
}

fn pid_text(pid: u32) -> String {
    format!("{pid:03}")
}

fn student(id: &str, name: &str, age: u8) -> Student {
    Student {
        id: id.into(),
        name: name.into(),
        age,
        courses: BTreeMap::new(),
    }
}

fn course(id: &str, title: &str, teacher: &str) -> Course {
    Course {
        id: id.into(),
        title: title.into(),
        teacher: teacher.into(),
        students: BTreeMap::new(),
    }
}

fn links(pairs: &[(&str, &str)]) -> Links {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string(), true))
        .collect()
}

async fn students_and_courses(ex: &mut Example) -> Result<()> {
    ex.say("\n-- students and courses (ids reversed in the row key)");
    let e = Enrolments {
        students: ex.fresh::<Student>().await,
        courses: ex.fresh::<Course>().await,
    };
    let ada = student("20110008", "Ada", 19);
    let bob = student("20110009", "Bob", 20);
    let cyd = student("20110010", "Cyd", 19);
    let dan = student("20110011", "Dan", 21);
    let db = course("2024001", "Databases", "Codd");
    let os = course("2024002", "Operating systems", "Thompson");
    let net = course("2024003", "Networks", "Cerf");
    e.students
        .save_all(&[ada.clone(), bob.clone(), cyd.clone(), dan.clone()])
        .await?;
    e.courses
        .save_all(&[db.clone(), os.clone(), net.clone()])
        .await?;

    let keys: Vec<String> = [&ada, &bob, &cyd, &dan]
        .iter()
        .map(|s| {
            s.row_key()
                .map(|k| String::from_utf8_lossy(&k).into_owned())
        })
        .collect::<Result<_>>()?;
    ex.say(format!(
        "student ids 20110008..20110011 are stored under row keys {keys:?}: sequential ids \
         written in order would all go to the region holding the end of the table; reversed, \
         they start with different digits and spread over the regions"
    ));
    ex.check_eq(
        "a student's row key is its id reversed",
        keys[0].as_str(),
        "80001102",
    );
    let first_bytes: BTreeSet<u8> = keys.iter().map(|k| k.as_bytes()[0]).collect();
    ex.check_eq(
        "sequential ids start with different bytes (writes spread, no hot end of the table)",
        first_bytes.len(),
        keys.len(),
    );
    let scanned: Vec<String> = e
        .students
        .scan()
        .stream()
        .map_ok(|s| s.id)
        .try_collect()
        .await?;
    ex.check_eq(
        "a scan follows the reversed keys, not id order (the price of spreading)",
        scanned,
        vec!["20110010", "20110011", "20110008", "20110009"]
            .into_iter()
            .map(String::from)
            .collect(),
    );

    for (s, c) in [
        (&ada, &db),
        (&ada, &os),
        (&bob, &db),
        (&cyd, &os),
        (&cyd, &net),
        (&dan, &db),
        (&dan, &net),
    ] {
        e.enroll(s, c).await?;
    }
    ex.say("enrolled: Ada in Databases and OS, Bob in Databases, Cyd in OS and Networks, Dan in Databases and Networks");
    ex.check_eq(
        "Ada's courses, one read of her row",
        e.courses_of(&ada.id).await?,
        vec![db.id.clone(), os.id.clone()],
    );
    ex.check_eq(
        "Databases' students, one read of its row",
        e.students_of(&db.id).await?,
        vec![ada.id.clone(), bob.id.clone(), dan.id.clone()],
    );
    let ada_row = e.students.get(&ada.key()).await?;
    ex.check_eq(
        "Ada's row holds the course titles too (no read of the course table to print them)",
        ada_row.map(|s| s.courses.into_values().collect::<Vec<_>>()),
        Some(vec![
            "Databases".to_string(),
            "Operating systems".to_string(),
        ]),
    );
    let want = links(&[
        ("20110008", "2024001"),
        ("20110008", "2024002"),
        ("20110009", "2024001"),
        ("20110010", "2024002"),
        ("20110010", "2024003"),
        ("20110011", "2024001"),
        ("20110011", "2024003"),
    ]);
    let (from_students, from_courses) = e.both_sides().await?;
    ex.check_eq(
        "after 7 enrolments the students' side records them all",
        &from_students,
        &want,
    );
    ex.check_eq(
        "and the courses' side records the same links",
        &from_courses,
        &from_students,
    );

    e.drop_course(&bob, &db).await?;
    e.drop_course(&dan, &net).await?;
    ex.say("removed: Bob from Databases, Dan from Networks");
    ex.check_eq(
        "Bob takes no course any more",
        e.courses_of(&bob.id).await?,
        vec![],
    );
    ex.check_eq(
        "Networks lists Cyd only",
        e.students_of(&net.id).await?,
        vec![cyd.id.clone()],
    );
    ex.check_eq(
        "Databases counts 2 students (qualifiers only)",
        e.courses.wide(Course::STUDENTS).count(&db.key()).await?,
        2,
    );
    let (from_students, from_courses) = e.both_sides().await?;
    ex.check_eq(
        "after the removals both sides agree",
        &from_courses,
        &from_students,
    );
    ex.check_eq("5 links remain", from_students.len(), 5);

    e.rename_course(&db.id, "Database systems").await?;
    ex.say("renamed Databases to Database systems: its row, then the copy in each enrolled student's row");
    let (from_students, from_courses) = e.both_sides().await?;
    ex.check(
        "every copied title and name is current after the rename",
        from_students
            .iter()
            .chain(&from_courses)
            .all(|(_, _, current)| *current),
    );
    let ada_titles = e.students.get(&ada.key()).await?.map(|s| s.courses);
    ex.check_eq(
        "Ada's row shows the new title",
        ada_titles.and_then(|c| c.get(&db.id).cloned()),
        Some("Database systems".to_string()),
    );

    e.delete_student(&cyd.id).await?;
    ex.say("deleted Cyd: out of OS and Networks first, then her row");
    ex.check("Cyd's row is gone", !e.students.exists(&cyd.key()).await?);
    ex.check_eq(
        "OS lists Ada only",
        e.students_of(&os.id).await?,
        vec![ada.id.clone()],
    );
    let (from_students, from_courses) = e.both_sides().await?;
    ex.check_eq(
        "after the delete both sides agree",
        &from_courses,
        &from_students,
    );
    ex.check_eq(
        "the remaining links",
        from_students,
        links(&[
            ("20110008", "2024001"),
            ("20110008", "2024002"),
            ("20110011", "2024001"),
        ]),
    );
    Ok(())
}

async fn persons_and_roles(ex: &mut Example) -> Result<()> {
    ex.say("\n-- persons and roles (plain ids)");
    let m = Memberships {
        persons: ex.fresh::<Person>().await,
        roles: ex.fresh::<Role>().await,
    };
    let person = |pid, name: &str| Person {
        pid,
        name: name.into(),
        roles: BTreeMap::new(),
    };
    let role = |rid, name: &str| Role {
        rid,
        name: name.into(),
        members: BTreeMap::new(),
    };
    let (p1, p2, p3) = (
        person(1, "Xiaohei"),
        person(2, "Xiaohuang"),
        person(3, "Xiaobai"),
    );
    let (monitor, private, clerk) = (
        role(100, "monitor"),
        role(200, "private"),
        role(300, "clerk"),
    );
    m.persons
        .save_all(&[p1.clone(), p2.clone(), p3.clone()])
        .await?;
    m.roles
        .save_all(&[monitor.clone(), private.clone(), clerk.clone()])
        .await?;
    for (p, r) in [
        (&p1, &monitor),
        (&p1, &private),
        (&p2, &private),
        (&p3, &private),
        (&p3, &clerk),
    ] {
        m.grant(p, r).await?;
    }
    ex.say("granted: 001 monitor and private, 002 private, 003 private and clerk");
    let p1_roles = m.persons.get(&p1.key()).await?.map(|p| p.roles);
    ex.check_eq(
        "person 001 holds roles 100=monitor, 200=private",
        p1_roles,
        Some(BTreeMap::from([
            (100, "monitor".to_string()),
            (200, "private".to_string()),
        ])),
    );
    let members = m
        .roles
        .wide(Role::MEMBERS)
        .slice(&private.key())
        .fetch()
        .await?;
    ex.check_eq(
        "role 200 lists persons 001, 002, 003",
        members
            .entries
            .iter()
            .map(|(pid, _)| *pid)
            .collect::<Vec<_>>(),
        vec![1, 2, 3],
    );
    let (from_persons, from_roles) = m.both_sides().await?;
    ex.check_eq(
        "both sides agree after 5 grants",
        &from_roles,
        &from_persons,
    );
    ex.check_eq("5 links", from_persons.len(), 5);

    // The role side removes a person: the same two-row change as a person dropping a role.
    m.revoke(&p2, &private).await?;
    m.revoke(&p1, &monitor).await?;
    ex.say("revoked: private from 002, monitor from 001");
    ex.check_eq(
        "role 100 has no members left",
        m.roles.wide(Role::MEMBERS).count(&monitor.key()).await?,
        0,
    );
    ex.check_eq(
        "person 002 holds no role",
        m.persons.get(&p2.key()).await?.map(|p| p.roles.len()),
        Some(0),
    );
    let (from_persons, from_roles) = m.both_sides().await?;
    ex.check_eq(
        "both sides agree after the revokes",
        &from_roles,
        &from_persons,
    );
    ex.check_eq(
        "the remaining links",
        from_persons,
        links(&[("001", "200"), ("003", "200"), ("003", "300")]),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "many_to_many",
        "Each side of a many-to-many relation is its own table; a row lists its links in a \
         family of its own (one cell per link, with a copy of the other side's name), so \
         either side's list is one row read and no join is needed. Adding or removing a link \
         writes both rows.",
        Client::from_env().await,
    )
    .await;
    let ran = students_and_courses(&mut ex).await;
    ex.ran("students and courses", ran);
    let ran = persons_and_roles(&mut ex).await;
    ex.ran("persons and roles", ran);
    ex.say("");
    ex.advice::<Student>(&[]);
    ex.advice::<Course>(&[]);
    ex.advice::<Person>(&[]);
    ex.advice::<Role>(&[]);
    ex.finish()
}
