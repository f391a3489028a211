//! `api/auth`: sign-in, one-time id exchange (single sign-on) and sign-out.

use poem::web::Data;
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, OpenApi};

use super::AppState;
use crate::error::{ApiResult, Envelope};
use crate::store::auth::Session;

pub struct AuthApi;

#[derive(ApiResponse)]
enum SignOutResponse {
    /// The token no longer works.
    #[oai(status = 200)]
    Ok(Json<Envelope<bool>>),
}

#[OpenApi(prefix_path = "/auth", tag = "super::ApiTags::Auth")]
impl AuthApi {
    /// Ends the caller's session: its token stops working at once.
    #[oai(path = "/signout", method = "post", operation_id = "signout")]
    async fn signout(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
    ) -> ApiResult<SignOutResponse> {
        let hash = session.token_hash.clone();
        state
            .store
            .write(move |tx| {
                tx.execute("DELETE FROM tokens WHERE token_hash = ?1", [hash])?;
                Ok(())
            })
            .await?;
        Ok(SignOutResponse::Ok(Envelope::ok(true)))
    }
}
