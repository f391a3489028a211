//! `api/trs/v1/groups` and `api/trs/v1/groups/{id}`: test case groups. Everyone signed in
//! lists and reads the groups they see (a restricted user, first role ROLE_USER, only the
//! groups assigned to them); administrators with read-write access create, change and
//! delete them.

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::registry::{MetaMediaType, MetaRequest, Registry};
use poem_openapi::types::Type;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions, Object, OpenApi, Union};

use super::dependents::{named, Dependent};
use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, Page};
use super::guard::Auth;
use super::lenient::{AtLeastOne, Name, OneOf, Required, Text, TextRule};
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::group::GroupUses;
use crate::domain::page::Sort;
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::Channel;
use crate::store::catalog::{self, CaseRef, GroupDraft, GroupFilter, GroupSortField, GroupSummary};

/// Page size of the settings list of groups when none is given (spec §9).
pub const GROUP_PAGE_SIZE: u32 = 10;
/// Most groups one list delete takes.
pub const MAX_DELETE_IDS: usize = 1000;

/// The ids of a list delete: `?ids=1,2` and/or a JSON body `[1, 2]` (or `{"ids": [1, 2]}`),
/// without repeats, in the order given.
fn delete_ids(query: Option<&str>, body: &[u8]) -> Result<Vec<i64>, ApiError> {
    let mut p = Problems::default();
    let mut ids: Vec<i64> = Vec::new();
    for part in query.unwrap_or_default().split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        match part.parse::<i64>() {
            Ok(id) if id > 0 => ids.push(id),
            _ => p.push(
                "ids",
                Rule::Invalid,
                format!("ids: {part:?} is not a group id."),
            ),
        }
    }
    if !body.iter().all(u8::is_ascii_whitespace) {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Ids {
            List(Vec<i64>),
            Object { ids: Vec<i64> },
        }
        match serde_json::from_slice::<Ids>(body) {
            Ok(Ids::List(list) | Ids::Object { ids: list }) => {
                for id in list {
                    if id > 0 {
                        ids.push(id);
                    } else {
                        p.push(
                            "ids",
                            Rule::Invalid,
                            format!("ids: {id} is not a group id."),
                        );
                    }
                }
            }
            Err(_) => p.push(
                "ids",
                Rule::Invalid,
                "The body must be a JSON array of group ids, e.g. [1, 2].",
            ),
        }
    }
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(*id));
    if ids.is_empty() && p.is_empty() {
        p.push(
            "ids",
            Rule::Required,
            "ids: give the groups to delete, as ?ids=1,2 or a JSON array body.",
        );
    }
    if ids.len() > MAX_DELETE_IDS {
        p.push(
            "ids",
            Rule::Invalid,
            format!("ids: at most {MAX_DELETE_IDS} groups at once."),
        );
    }
    p.check()?;
    Ok(ids)
}

/// The ids of a list delete as a body documents them: `[1, 2]` or `{"ids": [1, 2]}`.
#[derive(Debug, Union)]
#[oai(one_of)]
pub enum DeleteIds {
    List(AtLeastOne<params::Id, MAX_DELETE_IDS>),
    Object(DeleteIdsObject),
}

/// `{"ids": [1, 2]}`.
#[derive(Debug, Object)]
pub struct DeleteIdsObject {
    pub ids: AtLeastOne<params::Id, MAX_DELETE_IDS>,
}

/// The optional JSON body of a list delete, documented as [`DeleteIds`] and read raw, so
/// that [`delete_ids`] names what is wrong with it (field `ids`).
pub struct DeleteBody(pub poem::Body);

impl<'a> ApiExtractor<'a> for DeleteBody {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        DeleteIds::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: "application/json",
                schema: DeleteIds::schema_ref(),
            }],
            required: false,
        })
    }

    async fn from_request(
        _request: &'a poem::Request,
        body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        Ok(DeleteBody(body.take()?))
    }
}

/// `search` of the groups' page: at most a name's length.
pub struct Search;

impl TextRule for Search {
    const NAME: &'static str = "string(group search)";
    /// No NUL character: no name holds one (PostgreSQL's text cannot).
    const PATTERN: Option<&'static str> = Some(r"^[^\x00]*$");
    const MAX_LENGTH: Option<usize> = Some(catalog::MAX_NAME);
}

/// `ids` of a list delete: group ids (1 or more), separated by commas.
pub struct GroupIds;

impl TextRule for GroupIds {
    const NAME: &'static str = "string(group ids)";
    const PATTERN: Option<&'static str> =
        Some("^ *(0*[1-9][0-9]{0,17} *)?(, *(0*[1-9][0-9]{0,17} *)?)*$");
}

/// `sort` of the groups' page.
pub struct GroupSort;

impl TextRule for GroupSort {
    const NAME: &'static str = "string(GroupSort)";
    const PATTERN: Option<&'static str> = Some("^(id|name|caseCount)(,(asc|desc))?$");
}

pub struct GroupsApi;

/// A test case group in the list.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupItem {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
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
            channel: g.channel,
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
    pub channel: Channel,
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
    #[oai(nullable)]
    pub id: Option<i64>,
    /// 1 to 200 characters, no control or text-direction characters.
    pub name: Required<Text<Name<{ catalog::MAX_NAME }>>>,
    pub channel: Required<OneOf<Channel>>,
    /// At least one existing test case of the channel.
    pub test_cases: Required<AtLeastOne<CaseIdItem>>,
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
        let test_case_ids: Vec<i64> = self
            .test_cases
            .iter()
            .flat_map(|l| l.iter())
            .map(|c| c.id)
            .collect();
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
    ) -> Answer<Json<Envelope<Vec<GroupItem>>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let groups = state.store.list_groups(caller.scope()).await?;
        Ok(Envelope::ok(
            groups.into_iter().map(GroupItem::from).collect(),
        ))
    }

    /// One page of the groups the caller may see (the settings list): `search` matches a
    /// part of the name (any case) or the id.
    #[oai(path = "/groups/page", method = "get", operation_id = "pageGroups")]
    async fn page(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Groups per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Part of the name, without case, or the id (at most 200 characters).
        search: Query<Option<Text<Search>>>,
        /// `field,direction`: field `id`, `name` or `caseCount`, direction `asc` or `desc`
        /// (default `id,desc`).
        sort: Query<Option<Text<GroupSort>>>,
    ) -> Answer<Json<Envelope<Page<GroupItem>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            GROUP_PAGE_SIZE,
            &mut p,
        );
        let sort = params::sort(
            sort.0.as_deref(),
            GroupSortField::parse,
            Sort {
                field: GroupSortField::Id,
                descending: true,
            },
            &mut p,
        );
        if search
            .0
            .as_ref()
            .is_some_and(|s| s.chars().count() > catalog::MAX_NAME)
        {
            p.push(
                "search",
                Rule::Invalid,
                format!("search is longer than {} characters.", catalog::MAX_NAME),
            );
        }
        if search.0.as_ref().is_some_and(|s| s.contains('\0')) {
            p.push("search", Rule::Invalid, "search holds a NUL character.");
        }
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let filter = GroupFilter {
            search: search
                .0
                .map(|s| s.trim().to_lowercase())
                .filter(|s| !s.is_empty()),
            sort,
        };
        let groups = state
            .store
            .page_groups(caller.scope(), filter, page)
            .await?;
        Ok(Page::ok(groups))
    }

    /// One group with its test cases.
    #[oai(path = "/groups/:id", method = "get", operation_id = "getGroup")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<GroupDetail>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let found = state.store.group(caller.scope(), id.0).await?;
        let group = params::visible(found, format_args!("Group {}", id.0))?;
        Ok(Envelope::ok(group.into()))
    }

    /// Creates a test case group of existing test cases of its channel (administrators with
    /// read-write access). A name another group has (without case) is 409, field `name`,
    /// rule `taken`.
    #[oai(path = "/groups", method = "post", operation_id = "createGroup")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<GroupSave>,
    ) -> Answer<Json<Envelope<GroupDetail>>, { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL }>
    {
        auth.require(Need::AdminWrite)?;
        let draft = body.draft(None)?;
        let group = state.store.create_group(&draft).await?;
        Ok(Envelope::ok(group.into()))
    }

    /// Renames a group and replaces its channel and test cases (administrators with
    /// read-write access). A name another group has (without case) is 409, field `name`,
    /// rule `taken`.
    #[oai(path = "/groups/:id", method = "put", operation_id = "updateGroup")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<GroupSave>,
    ) -> Answer<
        Json<Envelope<GroupDetail>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        auth.require(Need::AdminWrite)?;
        let draft = body.draft(Some(id.0))?;
        let group = state.store.update_group(id.0, &draft).await?;
        Ok(Envelope::ok(group.into()))
    }

    /// What deleting a group takes with it (administrators; cxwatch's addition): its alert
    /// settings and reports, the users it is assigned to, the maintenance windows not ended
    /// that cover it. The list screen asks it before it confirms a delete.
    #[oai(
        path = "/groups/:id/dependents",
        method = "get",
        operation_id = "getGroupDependents"
    )]
    async fn dependents(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<GroupDependents>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        auth.require(Need::Admin)?;
        let uses = state
            .store
            .group_uses(id.0)
            .await?
            .ok_or_else(|| ApiError::not_found(format!("Group {} does not exist.", id.0)))?;
        Ok(Envelope::ok(uses.into()))
    }

    /// Deletes several groups (the settings list's delete, spec §7 'a list delete'): the ids
    /// as `?ids=1,2` or as a JSON array body `[1, 2]`. All or none: when one does not
    /// exist, nothing is deleted (404 naming it); when one is used and `cascade` is not
    /// true, nothing is deleted (409 naming what uses it). Each deletion is audited.
    #[oai(path = "/groups", method = "delete", operation_id = "deleteGroups")]
    async fn delete_list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Comma-separated group ids (or give them as a JSON array body).
        ids: Query<Option<Text<GroupIds>>>,
        /// `true`: delete the groups' alert settings and reports too, and take the groups
        /// from their users and maintenance windows (`GET groups/{id}/dependents`).
        cascade: Query<Option<bool>>,
        body: DeleteBody,
    ) -> Answer<Json<Envelope<bool>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }>
    {
        auth.require(Need::AdminWrite)?;
        let body = body
            .0
            .into_vec()
            .await
            .map_err(|_| ApiError::bad_request("The body could not be read."))?;
        let ids = delete_ids(ids.0.as_deref(), &body)?;
        state
            .store
            .delete_groups(ids, cascade.0.unwrap_or(false))
            .await?;
        Ok(Envelope::ok(true))
    }

    /// Deletes a group; its test cases and their runs stay. While alert settings or reports
    /// of it exist, or users or maintenance windows have it, 409 naming them, unless
    /// `cascade` is true: then they are deleted (alert settings, reports) or it is taken
    /// from them (users, windows; a window left covering nothing is ended), each audited.
    #[oai(path = "/groups/:id", method = "delete", operation_id = "deleteGroup")]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        /// `true`: delete what uses the group with it (`GET groups/{id}/dependents`).
        cascade: Query<Option<bool>>,
    ) -> Answer<Json<Envelope<bool>>, { FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }> {
        auth.require(Need::AdminWrite)?;
        state
            .store
            .delete_groups(vec![id.0], cascade.0.unwrap_or(false))
            .await?;
        Ok(Envelope::ok(true))
    }
}

/// What uses a test case group (cxwatch's addition): deleting it is refused (409 naming
/// them) unless the cascade is asked.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupDependents {
    /// Alert settings that watch it: deleted with it.
    pub alert_settings: Vec<Dependent>,
    /// How many open alerts those settings have: closed when they go (the history stays).
    pub open_alerts: i64,
    /// Reports of it (and their schedules): deleted with it.
    pub reports: Vec<Dependent>,
    /// Users it is assigned to (by username): it is taken from their groups.
    pub users: Vec<Dependent>,
    /// Maintenance windows not ended that cover it: it is taken from them.
    pub maintenance_windows: Vec<Dependent>,
}

impl From<GroupUses> for GroupDependents {
    fn from(u: GroupUses) -> Self {
        GroupDependents {
            alert_settings: named(u.alert_settings),
            open_alerts: u.open_alerts,
            reports: named(u.reports),
            users: named(u.users),
            maintenance_windows: named(u.windows),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::delete_ids;

    #[test]
    fn list_delete_ids_from_the_query_and_the_body() {
        assert_eq!(delete_ids(Some("1, 2,2"), b"").unwrap(), vec![1, 2]);
        assert_eq!(delete_ids(None, b" [3, 1] ").unwrap(), vec![3, 1]);
        assert_eq!(delete_ids(None, br#"{"ids": [4]}"#).unwrap(), vec![4]);
        assert_eq!(delete_ids(Some("5"), b"[5, 6]").unwrap(), vec![5, 6]);
        for (q, b) in [
            (None, &b""[..]),
            (Some(""), b"  "),
            (Some("x"), b""),
            (Some("0"), b""),
            (None, b"[-1]"),
            (None, b"{"),
            (None, b"\"1\""),
        ] {
            assert!(delete_ids(q, b).is_err(), "{q:?} {b:?}");
        }
        let many = (1..=1001)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(delete_ids(Some(&many), b"").is_err());
    }
}
