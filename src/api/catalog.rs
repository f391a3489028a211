//! `api/trs/v1/groups/channels` and `api/trs/v1/ivrs`: the channels, and the IVR
//! applications (voice) and chatbots (web) with their test cases.

use poem::web::Data;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, Envelope};
use super::groups::CaseItem;
use super::guard::Auth;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::run::Channel;
use crate::store::catalog::Ivr;

pub struct CatalogApi;

/// A channel: id `voice` (shown 'Voice') or `web` (shown 'Digital').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChannelItem {
    pub id: String,
    /// Numeric code: 1 voice, 2 web.
    pub code: i64,
    pub name: String,
}

/// An IVR application (voice) or chatbot (web) with its test cases.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IvrItem {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    /// By name.
    pub test_cases: Vec<CaseItem>,
}

impl From<Ivr> for IvrItem {
    fn from(i: Ivr) -> Self {
        IvrItem {
            id: i.id,
            name: i.name,
            channel: i.channel,
            test_cases: i.test_cases.into_iter().map(CaseItem::from).collect(),
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Groups")]
impl CatalogApi {
    /// The channels: voice ('Voice') and web ('Digital').
    #[oai(
        path = "/groups/channels",
        method = "get",
        operation_id = "listChannels"
    )]
    async fn channels(&self, auth: Auth) -> Answer<Json<Envelope<Vec<ChannelItem>>>, { NONE }> {
        auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(
            Channel::ALL
                .iter()
                .enumerate()
                .map(|(i, c)| ChannelItem {
                    id: c.as_str().into(),
                    code: i as i64 + 1,
                    name: c.label().into(),
                })
                .collect(),
        ))
    }

    /// IVR applications (voice) and chatbots (web) with their test cases, by name. A
    /// restricted user sees only the test cases of their groups (and only applications
    /// that have any).
    #[oai(path = "/ivrs", method = "get", operation_id = "listIvrs")]
    async fn ivrs(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<IvrItem>>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let ivrs = state.store.ivrs(caller.scope()).await?;
        Ok(Envelope::ok(ivrs.into_iter().map(IvrItem::from).collect()))
    }
}
