//! `api/trs/v1/groups/health`: the latest health of the client applications the caller
//! sees (a restricted user: the applications their groups' test cases call).

use poem::web::Data;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, Envelope};
use super::guard::Auth;
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::ingest::{ClientAppHealth, ComponentPresence, ComponentState};
use crate::domain::run::Channel;

pub struct HealthApi;

/// Client applications of one channel.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChannelHealth {
    pub channel: Channel,
    /// By endpoint name.
    pub client_apps: Vec<ClientAppItem>,
}

impl From<(Channel, Vec<ClientAppHealth>)> for ChannelHealth {
    fn from((channel, apps): (Channel, Vec<ClientAppHealth>)) -> Self {
        ChannelHealth {
            channel,
            client_apps: apps.into_iter().map(ClientAppItem::from).collect(),
        }
    }
}

/// Latest health of a client application (spec §3).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClientAppItem {
    pub client_end_point: String,
    pub channel: Channel,
    /// Time of the application's last run (UTC).
    pub last_run: String,
    pub app_status: StatusItem,
    pub telco_status: StatusItem,
    pub agent_status: StatusItem,
    pub component_status: Vec<ComponentItem>,
}

impl From<ClientAppHealth> for ClientAppItem {
    fn from(a: ClientAppHealth) -> Self {
        ClientAppItem {
            client_end_point: a.client_end_point,
            channel: a.channel,
            last_run: params::time(a.last_run),
            app_status: a.app_status.into(),
            telco_status: a.telco_status.into(),
            agent_status: a.agent_status.into(),
            component_status: a
                .component_status
                .into_iter()
                .map(ComponentItem::from)
                .collect(),
        }
    }
}

/// `TRS_PASS` is pass; any other status of an enabled component is a failure.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct StatusItem {
    pub enabled: bool,
    pub status: String,
}

impl From<ComponentState> for StatusItem {
    fn from(s: ComponentState) -> Self {
        StatusItem {
            enabled: s.enabled,
            status: s.status,
        }
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ComponentItem {
    pub name: String,
    pub has_component: bool,
    pub enabled: bool,
    /// cxwatch's: this component's own status (`TRS_PASS` is pass) when the engine reported
    /// it; absent, the component shares the application's `appStatus` (the spec's shape).
    #[oai(skip_serializing_if_is_none)]
    pub status: Option<String>,
}

impl From<ComponentPresence> for ComponentItem {
    fn from(c: ComponentPresence) -> Self {
        ComponentItem {
            name: c.name,
            has_component: c.has_component,
            enabled: c.enabled,
            status: c.status,
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Groups")]
impl HealthApi {
    /// Latest health of the client applications the caller sees, by channel (voice, then
    /// web). A restricted user sees the applications their groups' test cases call.
    #[oai(path = "/groups/health", method = "get", operation_id = "groupsHealth")]
    async fn health(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<ChannelHealth>>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let all = state.store.health(caller.scope()).await?;
        Ok(Envelope::ok(
            all.into_iter().map(ChannelHealth::from).collect(),
        ))
    }
}
