//! Input types whose OpenAPI document says more than their parsing enforces, like
//! [`super::params::Ranged`]: the document states what a valid request is (a field that is
//! required, a value from a closed list), while the handler still reads what was sent and
//! names every problem in one answer, each tied to its field with the spec's message
//! (`docs/api.md` 'Required inputs'). poem-openapi would otherwise refuse the whole body at
//! the first missing or unknown value, with a message tied to no field.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Deref;

use poem_openapi::error::{ContentTypeError, ParseRequestPayloadError};
use poem_openapi::payload::{Json, ParsePayload, Payload};
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchemaRef, Registry};
use poem_openapi::types::{
    ParseError, ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type,
};
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};
use serde_json::Value;

/// A body field the operation needs: `required` in the document, read as an `Option` so
/// that a missing (or `null`) one reaches the handler, which answers 400 naming it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Required<T>(pub Option<T>);

impl<T> Deref for Required<T> {
    type Target = Option<T>;

    fn deref(&self) -> &Option<T> {
        &self.0
    }
}

impl<T> From<Option<T>> for Required<T> {
    fn from(v: Option<T>) -> Self {
        Required(v)
    }
}

impl<T> Required<T> {
    pub fn into_inner(self) -> Option<T> {
        self.0
    }
}

impl<T: Type> Type for Required<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = T::RawValueType;
    type RawElementValueType = T::RawElementValueType;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        self.0.as_ref().and_then(Type::as_raw_value)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        match &self.0 {
            Some(v) => v.raw_element_iter(),
            None => Box::new(std::iter::empty()),
        }
    }
}

impl<T: ParseFromJSON> ParseFromJSON for Required<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Option::<T>::parse_from_json(value)
            .map(Required)
            .map_err(ParseError::propagate)
    }
}

impl<T: ToJSON> ToJSON for Required<T> {
    fn to_json(&self) -> Option<Value> {
        self.0.to_json()
    }
}

/// A value from a closed list, documented as the enum `E` (its wire strings), read as the
/// text given: the handler parses it and names a value outside the list in `fields`.
#[derive(Clone, PartialEq, Eq)]
pub struct OneOf<E>(pub String, PhantomData<E>);

/// Shown as the text given (`"ROLE_X"`), as the handlers' messages quote it.
impl<E> std::fmt::Debug for OneOf<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<E> OneOf<E> {
    pub fn new(s: impl Into<String>) -> Self {
        OneOf(s.into(), PhantomData)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<E> Deref for OneOf<E> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<E: Type> Type for OneOf<E> {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        E::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        E::schema_ref()
    }

    fn register(registry: &mut Registry) {
        E::register(registry);
    }

    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl<E: Type> ParseFromJSON for OneOf<E> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(s)) => Ok(OneOf::new(s)),
            other => Err(ParseError::expected_type(other.unwrap_or_default())),
        }
    }
}

impl<E: Type> ParseFromParameter for OneOf<E> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(OneOf::new(value))
    }
}

impl<E: Type> ToJSON for OneOf<E> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::caller::Role;

    #[test]
    fn required_reads_a_missing_or_null_field_as_none() {
        assert_eq!(
            Required::<String>::parse_from_json(None).unwrap(),
            Required(None)
        );
        assert_eq!(
            Required::<String>::parse_from_json(Some(Value::Null)).unwrap(),
            Required(None)
        );
        assert_eq!(
            Required::<String>::parse_from_json(Some(Value::String("a".into()))).unwrap(),
            Required(Some("a".into()))
        );
        assert!(Required::<i64>::parse_from_json(Some(Value::String("a".into()))).is_err());
        const { assert!(<Required<String> as Type>::IS_REQUIRED) };
    }

    #[test]
    fn one_of_keeps_any_text_and_documents_the_enum() {
        let v = OneOf::<Role>::parse_from_json(Some(Value::String("ROLE_X".into()))).unwrap();
        assert_eq!(v.as_str(), "ROLE_X");
        assert_eq!(format!("{v:?}"), "\"ROLE_X\"");
        assert!(OneOf::<Role>::parse_from_json(Some(Value::Bool(true))).is_err());
        assert_eq!(OneOf::<Role>::schema_ref(), Role::schema_ref());
    }
}

/// A JSON request body that may be left out: none at all (no `Content-Type` either), an
/// empty or blank one, or `null` read as `None`; anything else must be JSON of `T`. The
/// document marks the body as optional. poem-openapi's `Json` insists on a `Content-Type`,
/// which a client posting nothing does not send.
#[derive(Debug, Default)]
pub struct OptionalJson<T>(pub Option<T>);

impl<T: Type> Payload for OptionalJson<T> {
    const CONTENT_TYPE: &'static str = <Json<T> as Payload>::CONTENT_TYPE;

    fn check_content_type(content_type: &str) -> bool {
        <Json<T> as Payload>::check_content_type(content_type)
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: ParseFromJSON> ParsePayload for OptionalJson<T> {
    const IS_REQUIRED: bool = false;

    async fn from_request(
        request: &poem::Request,
        body: &mut poem::RequestBody,
    ) -> poem::Result<Self> {
        let typed = request
            .content_type()
            .map(<Self as Payload>::check_content_type);
        if typed == Some(false) {
            return Err(ContentTypeError::NotSupported {
                content_type: request.content_type().unwrap_or_default().to_string(),
            }
            .into());
        }
        let data = <Vec<u8> as poem::FromRequest>::from_request(request, body).await?;
        if data.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(None));
        }
        if typed.is_none() {
            return Err(ContentTypeError::ExpectContentType.into());
        }
        let value: Value = serde_json::from_slice(&data).map_err(|e| ParseRequestPayloadError {
            reason: e.to_string(),
        })?;
        if value.is_null() {
            return Ok(OptionalJson(None));
        }
        let v = T::parse_from_json(Some(value)).map_err(|e| ParseRequestPayloadError {
            reason: e.into_message(),
        })?;
        Ok(OptionalJson(Some(v)))
    }
}

impl<'a, T: ParseFromJSON> ApiExtractor<'a> for OptionalJson<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];

    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        <Self as Payload>::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: <Self as Payload>::CONTENT_TYPE,
                schema: <Self as Payload>::schema_ref(),
            }],
            required: false,
        })
    }

    async fn from_request(
        request: &'a poem::Request,
        body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        <Self as ParsePayload>::from_request(request, body).await
    }
}
