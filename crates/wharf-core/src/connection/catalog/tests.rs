// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};

use super::*;

#[test]
fn a_list_ends_at_its_page_bound_or_a_repeated_cursor() {
    let mut pager = Pager::default();
    let page = [json!({"name": "t"})];
    for n in 1..MAX_PAGES {
        pager.take(&page).unwrap();
        assert_eq!(
            pager.next(Some(&format!("c{n}"))).unwrap().unwrap(),
            format!("c{n}")
        );
    }
    pager.take(&page).unwrap();
    let why = pager.next(Some("one more")).unwrap_err();
    assert!(why.contains("after 100 pages"), "{why}");

    let mut pager = Pager::default();
    pager.take(&page).unwrap();
    assert_eq!(pager.next(Some("a")).unwrap().as_deref(), Some("a"));
    pager.take(&page).unwrap();
    assert_eq!(pager.next(Some("b")).unwrap().as_deref(), Some("b"));
    pager.take(&page).unwrap();
    let why = pager.next(Some("a")).unwrap_err();
    assert!(why.contains("cursor \"a\" twice"), "{why}");
    // The last page ends the list within every bound.
    assert_eq!(Pager::default().next(None).unwrap(), None);
}

#[test]
fn a_list_ends_at_its_item_and_byte_bounds() {
    let mut pager = Pager::default();
    let many: Vec<Value> = (0..=MAX_LIST_ITEMS).map(|_| json!(1)).collect();
    let why = pager.take(&many).unwrap_err();
    assert!(why.contains("items"), "{why}");

    let mut pager = Pager::default();
    let big = [json!("x".repeat(MAX_LIST_BYTES / 4))];
    for _ in 0..3 {
        pager.take(&big).unwrap();
    }
    let why = pager.take(&big).unwrap_err();
    assert!(why.contains("MiB"), "{why}");
}

#[test]
fn json_size_is_the_length_of_the_json() {
    let value = json!({"name": "t", "inputSchema": {"type": "object"}, "n": [1, 2.5, null]});
    assert_eq!(json_size(&value), value.to_string().len());
}
