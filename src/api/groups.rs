//! `api/trs/v1/groups` and `api/trs/v1/groups/{id}`: test case groups. Everyone signed in
//! lists and reads the groups they see (a restricted user, first role ROLE_USER, only the
//! groups assigned to them); administrators with read-write access create, change and
//! delete them.

use poem::web::Data;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::{ApiError, ApiResult, Envelope};
use super::guard::Auth;
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::Channel;
use crate::store::catalog::{self, CaseRef, GroupDraft, GroupSummary};

pub struct GroupsApi;

/// A test case group in the list.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupItem {
    pub id: i64,
    pub name: String,
    /// `voice` or `web`.
    pub channel: String,
    /// Number of test cases in the group.
    pub case_count: i64,
    /// Number of IVR applications (chatbots) those test cases call.
    pub ivr_count: i64,
}

impl From<GroupSummary> for GroupItem {
    fn from(g: GroupSummary) -> Self {
        GroupItem {
            id: g.id,
            name: g.name,
            channel: g.channel.as_str().into(),
            case_count: g.case_count,
            ivr_count: g.ivr_count,
        }
    }
}

/// A test case of a group or IVR application.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CaseItem {
    pub id: i64,
    pub ivr_id: i64,
    pub name: String,
}

impl From<CaseRef> for CaseItem {
    fn from(c: CaseRef) -> Self {
        CaseItem {
            id: c.id,
            ivr_id: c.ivr_id,
            name: c.name,
        }
    }
}

/// One group with its test cases.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupDetail {
    pub id: i64,
    pub name: String,
    /// `voice` or `web`.
    pub channel: String,
    pub case_count: i64,
    pub ivr_count: i64,
    /// By name.
    pub test_cases: Vec<CaseItem>,
}

impl From<catalog::GroupDetail> for GroupDetail {
    fn from(d: catalog::GroupDetail) -> Self {
        let g = GroupItem::from(d.group);
        GroupDetail {
            id: g.id,
            name: g.name,
            channel: g.channel,
            case_count: g.case_count,
            ivr_count: g.ivr_count,
            test_cases: d.test_cases.into_iter().map(CaseItem::from).collect(),
        }
    }
}

/// A test case of a group being saved.
#[derive(Debug, Object)]
pub struct CaseIdItem {
    pub id: i64,
}

/// Body of `POST groups` and `PUT groups/{id}`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupSave {
    /// Ignored on create; on update it must be absent or equal to the path's id.
    pub id: Option<i64>,
    /// Required: 1 to 200 characters, no control or text-direction characters.
    pub name: Option<String>,
    /// Required: `voice` or `web`.
    pub channel: Option<String>,
    /// Required: at least one existing test case of the channel.
    pub test_cases: Option<Vec<CaseIdItem>>,
}

impl GroupSave {
    /// The checked group: every problem is named, each tied to its field.
    fn draft(&self, path_id: Option<i64>) -> ApiResult<GroupDraft> {
        let mut p = Problems::default();
        if let Some(path) = path_id {
            p.same_id(path, self.id, "group");
        }
        let name = p.text("name", self.name.as_deref(), catalog::MAX_NAME);
        let channel = match self.channel.as_deref().map(str::trim) {
            None | Some("") => {
                p.push(
                    "channel",
                    Rule::Required,
                    "channel is required (voice or web).",
                );
                None
            }
            Some(c) => {
                let ch = Channel::parse(c);
                if ch.is_none() {
                    p.push(
                        "channel",
                        Rule::Invalid,
                        format!("channel {c:?} is not a channel (voice or web)."),
                    );
                }
                ch
            }
        };
        let test_case_ids: Vec<i64> = self.test_cases.iter().flatten().map(|c| c.id).collect();
        if test_case_ids.is_empty() {
            p.push(
                "testCases",
                Rule::Required,
                "testCases needs at least one test case.",
            );
        }
        p.check()?;
        match (name, channel) {
            (Some(name), Some(channel)) => Ok(GroupDraft {
                name,
                channel,
                test_case_ids,
            }),
            _ => Err(ApiError::bad_request("The group is not valid.")),
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Groups")]
impl GroupsApi {
    /// Test case groups the caller may see, by name.
    #[oai(path = "/groups", method = "get", operation_id = "listGroups")]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<Envelope<Vec<GroupItem>>>> {
        let caller = auth.require(Need::SignedIn)?;
        let groups = state.store.list_groups(caller.scope()).await?;
        Ok(Envelope::ok(
            groups.into_iter().map(GroupItem::from).collect(),
        ))
    }

    /// One group with its test cases.
    #[oai(path = "/groups/:id", method = "get", operation_id = "getGroup")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> ApiResult<Json<Envelope<GroupDetail>>> {
        let caller = auth.require(Need::SignedIn)?;
        let found = state.store.group(caller.scope(), id.0).await?;
        let group = params::visible(found, format_args!("Group {}", id.0))?;
        Ok(Envelope::ok(group.into()))
    }

    /// Creates a test case group of existing test cases of its channel (administrators with
    /// read-write access).
    #[oai(path = "/groups", method = "post", operation_id = "createGroup")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<GroupSave>,
    ) -> ApiResult<Json<Envelope<GroupDetail>>> {
        auth.require(Need::AdminWrite)?;
        let draft = body.draft(None)?;
        let group = state.store.create_group(&draft).await?;
        Ok(Envelope::ok(group.into()))
    }

    /// Renames a group and replaces its channel and test cases (administrators with
    /// read-write access).
    #[oai(path = "/groups/:id", method = "put", operation_id = "updateGroup")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<GroupSave>,
    ) -> ApiResult<Json<Envelope<GroupDetail>>> {
        auth.require(Need::AdminWrite)?;
        let draft = body.draft(Some(id.0))?;
        let group = state.store.update_group(id.0, &draft).await?;
        Ok(Envelope::ok(group.into()))
    }

    /// Deletes a group (its assignments to users go with it; test cases and runs stay).
    #[oai(path = "/groups/:id", method = "delete", operation_id = "deleteGroup")]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> ApiResult<Json<Envelope<bool>>> {
        auth.require(Need::AdminWrite)?;
        state.store.delete_group(id.0).await?;
        Ok(Envelope::ok(true))
    }
}
