//! `api/users`: the users resource in-process (spec §2 'User form', §5, §6, §7 'Users').

use crate::harness;

use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, PASSWORD};
use poem::http::Method;
use serde_json::{json, Value};

fn body(username: &str, role: &str, access: &str, groups: &[i64]) -> Value {
    let groups: Vec<_> = groups
        .iter()
        .map(|id| json!({"id": id, "name": ""}))
        .collect();
    json!({"username": username, "firstName": "Grace", "lastName": "Hopper", "roles": [role],
           "accessType": access, "testCaseGroups": groups, "password": "a long enough password"})
}

fn fields(v: &Value) -> Vec<(String, String)> {
    v["fields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    (
                        f["field"].as_str().unwrap().into(),
                        f["rule"].as_str().unwrap().into(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn admins_create_list_edit_and_delete_users() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let tok = Some(admin.token.as_str());

    let (s, created) = app
        .call(
            Method::POST,
            "/api/users",
            tok,
            Some(&body("grace@x.test", "ROLE_ADMIN", "read-only", &[])),
        )
        .await;
    assert_eq!(s, 200, "{created}");
    assert_eq!(created["code"], "OK");
    let id = created["data"]["id"].as_i64().unwrap();
    assert_eq!(created["data"]["roles"], json!(["ROLE_ADMIN"]));
    assert!(
        created["data"].get("password").is_none(),
        "no password in answers"
    );

    // Unique without case: 409 tied to the username field.
    let (s, dup) = app
        .call(
            Method::POST,
            "/api/users",
            tok,
            Some(&body("GRACE@x.test", "ROLE_USER", "read-only", &[])),
        )
        .await;
    assert_eq!(s, 409, "{dup}");
    assert_eq!(fields(&dup), [("username".into(), "taken".into())]);

    // Every problem named, in the form's order, beside its field.
    let (s, bad) = app
        .call(Method::POST, "/api/users", tok, Some(&json!({"username": "nope", "firstName": " ", "roles": ["ROLE_X"], "password": "short"})))
        .await;
    assert_eq!(s, 400, "{bad}");
    let got: Vec<_> = fields(&bad).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        got,
        [
            "firstName",
            "lastName",
            "username",
            "roles",
            "accessType",
            "password"
        ]
    );
    assert_eq!(bad["messages"].as_array().unwrap().len(), 6);
    let (s, ctl) = app.call(Method::POST, "/api/users", tok, Some(&json!({"username": "c@x.test", "firstName": "A\u{202E}b",
        "lastName": "B", "roles": ["ROLE_USER"], "accessType": "read-only", "password": "a long enough password"}))).await;
    assert_eq!(s, 400);
    assert_eq!(fields(&ctl), [("firstName".into(), "invalid".into())]);

    // A user restricted to a group that does not exist is refused.
    let (s, nog) = app
        .call(
            Method::POST,
            "/api/users",
            tok,
            Some(&body("u@x.test", "ROLE_USER", "read-only", &[999])),
        )
        .await;
    assert_eq!(s, 400, "{nog}");
    assert_eq!(fields(&nog), [("testCaseGroups".into(), "invalid".into())]);

    for i in 0..12 {
        let (s, _) = app
            .call(
                Method::POST,
                "/api/users",
                tok,
                Some(&body(
                    &format!("user{i:02}@x.test"),
                    "ROLE_USER",
                    "read-write",
                    &[],
                )),
            )
            .await;
        assert_eq!(s, 200);
    }
    // Server paging, search, filter and sort.
    let (_, page) = app
        .call(
            Method::GET,
            "/api/users?pageNo=1&pageSize=5&role=ROLE_USER&sort=username,asc",
            tok,
            None,
        )
        .await;
    assert_eq!(page["data"]["totalElements"], 12);
    let names: Vec<_> = page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "user05@x.test",
            "user06@x.test",
            "user07@x.test",
            "user08@x.test",
            "user09@x.test"
        ]
    );
    let (_, found) = app
        .call(Method::GET, "/api/users?search=GRACE@&pageNo=0", tok, None)
        .await;
    assert_eq!(found["data"]["totalElements"], 1);
    let (_, newest) = app
        .call(Method::GET, "/api/users?pageSize=1", tok, None)
        .await;
    assert_eq!(
        newest["data"]["content"][0]["username"], "user11@x.test",
        "default order id descending"
    );
    let (s, bad) = app
        .call(
            Method::GET,
            "/api/users?sort=password,asc&pageNo=-1",
            tok,
            None,
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(fields(&bad).len(), 2);

    // Edit, then delete; yourself you cannot delete.
    let mut edit = body("grace@x.test", "ROLE_ADMIN", "read-write", &[]);
    edit["id"] = json!(id);
    edit["firstName"] = json!("Amazing Grace");
    let (s, saved) = app
        .call(Method::PUT, &format!("/api/users/{id}"), tok, Some(&edit))
        .await;
    assert_eq!(s, 200, "{saved}");
    assert_eq!(saved["data"]["firstName"], "Amazing Grace");
    assert_eq!(saved["data"]["accessType"], "read-write");
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/users/{}", admin.id),
            tok,
            None,
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = app
        .call(Method::DELETE, &format!("/api/users/{id}"), tok, None)
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(Method::GET, &format!("/api/users/{id}"), tok, None)
        .await;
    assert_eq!(s, 404);
}

/// An operator finds accounts nobody uses: each user says when they last signed in (a kiosk
/// session does not count), in the list and the user, and the list sorts by it with those
/// who never signed in first.
#[tokio::test(flavor = "multi_thread")]
async fn users_say_when_they_last_signed_in() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let tok = Some(admin.token.as_str());
    let mut ids = Vec::new();
    for name in ["grace@x.test", "never@x.test", "wall@x.test"] {
        let mut b = body(name, "ROLE_ADMIN", "read-only", &[]);
        b["kiosk"] = json!(name == "wall@x.test");
        let (s, created) = app.call(Method::POST, "/api/users", tok, Some(&b)).await;
        assert_eq!(s, 200, "{created}");
        assert_eq!(created["data"]["lastSignInTime"], Value::Null, "{created}");
        ids.push(created["data"]["id"].as_i64().unwrap());
    }
    let sign_in = |username: &str, kiosk: bool| {
        json!({"username": username, "password": "a long enough password",
               "remember": false, "kiosk": kiosk})
    };
    let before = cxwatch::clock::now() - chrono::Duration::seconds(1);
    let (s, b) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&sign_in("grace@x.test", false)),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let after = cxwatch::clock::now();
    // A wall display's session is not a person's sign-in.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&sign_in("wall@x.test", true)),
        )
        .await;
    assert_eq!(s, 200, "{b}");

    let (s, grace) = app
        .call(Method::GET, &format!("/api/users/{}", ids[0]), tok, None)
        .await;
    assert_eq!(s, 200, "{grace}");
    let at =
        chrono::DateTime::parse_from_rfc3339(grace["data"]["lastSignInTime"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc);
    assert!(before <= at && at <= after, "{grace}");

    let listed = |sort: &str| {
        let app = &app;
        let path = format!("/api/users?pageNo=0&pageSize=10&sort={sort}");
        async move {
            let (s, b) = app.call(Method::GET, &path, tok, None).await;
            assert_eq!(s, 200, "{b}");
            b["data"]["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    (
                        u["username"].as_str().unwrap().to_string(),
                        u["lastSignInTime"].is_string(),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let row = |n: &str, signed: bool| (n.to_string(), signed);
    assert_eq!(
        listed("lastSignInTime,asc").await,
        [
            row("never@x.test", false),
            row("wall@x.test", false),
            row("admin@x.test", true),
            row("grace@x.test", true),
        ]
    );
    assert_eq!(
        listed("lastSignInTime,desc").await,
        [
            row("grace@x.test", true),
            row("admin@x.test", true),
            row("wall@x.test", false),
            row("never@x.test", false),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn read_write_accounts_edit_their_own_names_never_their_role() {
    let app = App::new();
    let _admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let me = app
        .user("me@x.test", Role::User, AccessType::ReadWrite, &[])
        .await;
    let other = app
        .user("other@x.test", Role::User, AccessType::ReadOnly, &[])
        .await;
    let tok = Some(me.token.as_str());
    let path = format!("/api/users/{}", me.id);

    let (s, mine) = app.call(Method::GET, &path, tok, None).await;
    assert_eq!(s, 200, "{mine}");
    let (s, _) = app
        .call(Method::GET, &format!("/api/users/{}", other.id), tok, None)
        .await;
    assert_eq!(s, 403);
    let (s, _) = app.call(Method::GET, "/api/users", tok, None).await;
    assert_eq!(s, 403);

    // Names and username: saved. The role, access and groups sent are the current ones.
    let mut edit = body("me2@x.test", "ROLE_USER", "read-write", &[]);
    edit["firstName"] = json!("Ada");
    let (s, saved) = app.call(Method::PUT, &path, tok, Some(&edit)).await;
    assert_eq!(s, 200, "{saved}");
    assert_eq!(saved["data"]["firstName"], "Ada");
    assert_eq!(saved["data"]["username"], "me2@x.test");

    // A save that tries to raise its own role or access is refused whole, field by field:
    // never 'saved' with the change silently dropped.
    let mut raise = body("me2@x.test", "ROLE_ADMIN", "read-write", &[]);
    raise["firstName"] = json!("Eve");
    raise["kiosk"] = json!(true);
    let (s, refused) = app.call(Method::PUT, &path, tok, Some(&raise)).await;
    assert_eq!(s, 400, "{refused}");
    assert_eq!(
        fields(&refused),
        [
            ("roles".into(), "forbidden".into()),
            ("kiosk".into(), "forbidden".into())
        ]
    );
    let mut groups = body("me2@x.test", "ROLE_USER", "read-only", &[1]);
    groups["firstName"] = json!("Eve");
    let (s, refused) = app.call(Method::PUT, &path, tok, Some(&groups)).await;
    assert_eq!(s, 400, "{refused}");
    assert_eq!(
        fields(&refused),
        [
            ("accessType".into(), "forbidden".into()),
            ("testCaseGroups".into(), "forbidden".into())
        ]
    );
    let (_, now) = app.call(Method::GET, &path, tok, None).await;
    assert_eq!(now["data"]["firstName"], "Ada");
    assert_eq!(now["data"]["roles"], json!(["ROLE_USER"]));
    assert_eq!(now["data"]["accessType"], "read-write");

    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/api/users/{}", other.id),
            tok,
            Some(&edit),
        )
        .await;
    assert_eq!(s, 403);
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/users/{}", other.id),
            tok,
            None,
        )
        .await;
    assert_eq!(s, 403);
}

/// A read-only account reads its profile and changes its password; its username,
/// names, role, access and groups it does not change.
#[tokio::test(flavor = "multi_thread")]
async fn read_only_accounts_change_their_password_not_their_profile() {
    let app = App::new();
    let _admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    for (who, role) in [
        ("ro.user@x.test", Role::User),
        ("ro.admin@x.test", Role::Admin),
    ] {
        let me = app.user(who, role, AccessType::ReadOnly, &[]).await;
        let tok = Some(me.token.as_str());
        let path = format!("/api/users/{}", me.id);
        let (s, mine) = app.call(Method::GET, &path, tok, None).await;
        assert_eq!(s, 200, "{mine}");
        let role_s = mine["data"]["roles"][0].as_str().unwrap();
        for change in [
            json!({"username": "someone.else@x.test", "firstName": "Test", "lastName": mine["data"]["lastName"]}),
            json!({"username": who, "firstName": "Renamed", "lastName": "Too"}),
            json!({"username": who, "firstName": "Test", "lastName": mine["data"]["lastName"],
                   "roles": [role_s], "accessType": "read-only", "testCaseGroups": []}),
        ] {
            let (s, no) = app.call(Method::PUT, &path, tok, Some(&change)).await;
            assert_eq!(s, 403, "{who}: {no}");
            assert_eq!(
                no["messages"][0],
                cxwatch::domain::caller::PROFILE_READ_ONLY,
                "{who}"
            );
        }
        let (_, after) = app.call(Method::GET, &path, tok, None).await;
        assert_eq!(after["data"], mine["data"], "{who}: nothing changed");

        let (s, ok) = app
            .call(
                Method::PATCH,
                &format!("{path}/overridePassword"),
                tok,
                Some(&json!({"oldPassword": PASSWORD, "newPassword": "violet tundra sparrow"})),
            )
            .await;
        assert_eq!(s, 200, "{who}: {ok}");
        let (s, _) = app
            .call(
                Method::POST,
                "/api/auth/signin",
                None,
                Some(&json!({"username": who, "password": "violet tundra sparrow"})),
            )
            .await;
        assert_eq!(s, 200, "{who}");
    }
}

/// Passwords easy to guess are refused with rule `weak`, on create, on a change of
/// your own and on an administrator's reset.
#[tokio::test(flavor = "multi_thread")]
async fn weak_passwords_are_refused() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let tok = Some(admin.token.as_str());
    for pw in [
        "aaaaaaaaaaaa",
        "123456789012",
        "passwordpassword",
        "grace.hopper@x.test",
        "gracehopper2024",
    ] {
        let mut b = body("grace.hopper@x.test", "ROLE_USER", "read-only", &[]);
        b["password"] = json!(pw);
        let (s, weak) = app.call(Method::POST, "/api/users", tok, Some(&b)).await;
        assert_eq!(s, 400, "{pw}: {weak}");
        assert_eq!(fields(&weak), [("password".into(), "weak".into())], "{pw}");
        assert!(
            weak["fields"][0]["message"]
                .as_str()
                .unwrap()
                .starts_with("password is too easy to guess"),
            "{weak}"
        );
    }
    let me = app
        .user("me@x.test", Role::User, AccessType::ReadWrite, &[])
        .await;
    let path = format!("/api/users/{}/overridePassword", me.id);
    for pw in ["passwordpassword", "me@x.testme@x.test", "qwertyuiop123"] {
        let (s, weak) = app
            .call(
                Method::PATCH,
                &path,
                Some(&me.token),
                Some(&json!({"oldPassword": PASSWORD, "newPassword": pw})),
            )
            .await;
        assert_eq!(s, 400, "{pw}: {weak}");
        assert_eq!(fields(&weak), [("newPassword".into(), "weak".into())]);
        let (s, weak) = app
            .call(Method::PATCH, &path, tok, Some(&json!({"newPassword": pw})))
            .await;
        assert_eq!(s, 400, "{pw}: {weak}");
        assert_eq!(fields(&weak), [("newPassword".into(), "weak".into())]);
    }
    // The old password still works: nothing was changed.
    let (s, _) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&json!({"username": "me@x.test", "password": PASSWORD})),
        )
        .await;
    assert_eq!(s, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn passwords_change_with_the_old_one_and_end_sessions() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let me = app
        .user("me@x.test", Role::User, AccessType::ReadWrite, &[])
        .await;
    let path = format!("/api/users/{}/overridePassword", me.id);

    let (s, wrong) = app
        .call(
            Method::PATCH,
            &path,
            Some(&me.token),
            Some(&json!({"newPassword": "my new long password", "oldPassword": "guess"})),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(fields(&wrong), [("oldPassword".into(), "mismatch".into())]);
    let (s, short) = app
        .call(
            Method::PATCH,
            &path,
            Some(&me.token),
            Some(&json!({"newPassword": "short", "oldPassword": PASSWORD})),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(fields(&short), [("newPassword".into(), "tooShort".into())]);

    let (s, _) = app
        .call(
            Method::PATCH,
            &path,
            Some(&me.token),
            Some(&json!({"newPassword": "my new long password", "oldPassword": PASSWORD})),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(
            Method::GET,
            &format!("/api/users/{}", me.id),
            Some(&me.token),
            None,
        )
        .await;
    assert_eq!(s, 401, "the old session ended");
    let signin = |pw: &str| json!({"username": "me@x.test", "password": pw});
    let (s, _) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&signin(PASSWORD)),
        )
        .await;
    assert_eq!(s, 401);
    let (s, ok) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&signin("my new long password")),
        )
        .await;
    assert_eq!(s, 200, "{ok}");

    // An administrator resets it with the new password alone.
    let (s, _) = app
        .call(
            Method::PATCH,
            &path,
            Some(&admin.token),
            Some(&json!({"newPassword": "reset by the admin"})),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&signin("reset by the admin")),
        )
        .await;
    assert_eq!(s, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_last_read_write_admin_stays_and_role_changes_end_sessions() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let tok = Some(admin.token.as_str());
    let mut demote = body("admin@x.test", "ROLE_ADMIN", "read-only", &[]);
    demote["id"] = json!(admin.id);
    let (s, last) = app
        .call(
            Method::PUT,
            &format!("/api/users/{}", admin.id),
            tok,
            Some(&demote),
        )
        .await;
    assert_eq!(s, 409, "{last}");

    let user = app
        .user("u@x.test", Role::User, AccessType::ReadOnly, &[])
        .await;
    let mut promote = body("u@x.test", "ROLE_ADMIN", "read-only", &[]);
    promote["id"] = json!(user.id);
    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/api/users/{}", user.id),
            tok,
            Some(&promote),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(Method::GET, "/api/users", Some(&user.token), None)
        .await;
    assert_eq!(s, 401, "a role change ends the user's sessions");
}
