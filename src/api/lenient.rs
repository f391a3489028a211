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
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef, Registry};
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

/// An empty value (`state=`) is none of the list's: refused, tied to the parameter, rather
/// than read as if the parameter were left out.
impl<E: Type> ParseFromParameter for OneOf<E> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        if value.trim().is_empty() {
            return Err(ParseError::custom(
                "is empty; give one of its values or leave the parameter out",
            ));
        }
        Ok(OneOf::new(value))
    }
}

impl<E: Type> ToJSON for OneOf<E> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

/// What the document says of a [`Text`]: a pattern, a format, lengths. The handler still
/// reads any string and names a value that breaks the rule in `fields`.
pub trait TextRule: Send + Sync + 'static {
    /// The schema's name in messages (`Type::name`).
    const NAME: &'static str;
    /// `pattern`: an ECMA 262 regular expression a valid value contains a match of.
    const PATTERN: Option<&'static str> = None;
    const FORMAT: Option<&'static str> = None;
    const MIN_LENGTH: Option<usize> = None;
    const MAX_LENGTH: Option<usize> = None;
}

/// A text whose document states its rule `R` (pattern, format, lengths), read as the text
/// given, like [`OneOf`].
pub struct Text<R>(pub String, PhantomData<R>);

impl<R> Text<R> {
    pub fn new(s: impl Into<String>) -> Self {
        Text(s.into(), PhantomData)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl<R> Clone for Text<R> {
    fn clone(&self) -> Self {
        Text::new(self.0.clone())
    }
}

impl<R> PartialEq for Text<R> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<R> Eq for Text<R> {}

impl<R> std::fmt::Debug for Text<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<R> Deref for Text<R> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<R: TextRule> Type for Text<R> {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        Cow::Borrowed(R::NAME)
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            format: R::FORMAT,
            pattern: R::PATTERN.map(str::to_string),
            min_length: R::MIN_LENGTH,
            max_length: R::MAX_LENGTH,
            ..MetaSchema::new("string")
        }))
    }

    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

/// Only a JSON string: a name sent as `false` or `123` is refused, not read as text.
impl<R: TextRule> ParseFromJSON for Text<R> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(s)) => Ok(Text::new(s)),
            other => Err(ParseError::expected_type(other.unwrap_or_default())),
        }
    }
}

impl<R: TextRule> ParseFromParameter for Text<R> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(Text::new(value))
    }
}

impl<R: TextRule> ToJSON for Text<R> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

/// A character that is not white space as Rust's `str::trim` reads it (spelt out: a
/// validator's `\\S` may be ASCII only).
macro_rules! not_space {
    () => {
        r"[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
    };
}

/// A text that must hold something besides white space (ids, passwords).
pub struct NotBlank;

impl TextRule for NotBlank {
    const NAME: &'static str = "string(not blank)";
    const PATTERN: Option<&'static str> = Some(not_space!());
}

/// A name or label ([`crate::domain::rules::Problems::text`]): something besides white
/// space, no control or text-direction characters, at most `N` characters.
pub struct Name<const N: usize>;

impl<const N: usize> TextRule for Name<N> {
    const NAME: &'static str = "string(name)";
    const PATTERN: Option<&'static str> = Some(
        r"^[^\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]*[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069][^\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]*$",
    );
    const MAX_LENGTH: Option<usize> = Some(N);
}

/// A text that must hold something besides white space, at most `N` characters.
pub struct NotBlankUpTo<const N: usize>;

impl<const N: usize> TextRule for NotBlankUpTo<N> {
    const NAME: &'static str = "string(not blank, bounded)";
    const PATTERN: Option<&'static str> = Some(not_space!());
    const MAX_LENGTH: Option<usize> = Some(N);
}

/// A text of at most `N` characters.
pub struct UpTo<const N: usize>;

impl<const N: usize> TextRule for UpTo<N> {
    const NAME: &'static str = "string(bounded)";
    const MAX_LENGTH: Option<usize> = Some(N);
}

/// A character no name may hold: control and text-direction characters
/// ([`crate::domain::rules::is_forbidden_char`]).
macro_rules! forbidden {
    () => {
        r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    };
}

/// White space as Rust's `char::is_whitespace` reads it.
macro_rules! space {
    () => {
        r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
    };
}

/// A text that may be blank or left out, at most `N` characters, none of them a control or
/// text-direction character (an optional label: a blank one is read as none).
pub struct Label<const N: usize>;

impl<const N: usize> TextRule for Label<N> {
    const NAME: &'static str = "string(label)";
    const PATTERN: Option<&'static str> = Some(concat!("^[^", forbidden!(), "]*$"));
    const MAX_LENGTH: Option<usize> = Some(N);
}

/// An e-mail address ([`crate::domain::rules::check_email`]): `name@domain`, one `@`, no
/// white space, the domain neither starting nor ending with a dot, at most 254 characters.
pub struct Email;

impl TextRule for Email {
    const NAME: &'static str = "string(email)";
    const PATTERN: Option<&'static str> = Some(concat!(
        "^[^@",
        space!(),
        forbidden!(),
        "]+@[^@.",
        space!(),
        forbidden!(),
        "]([^@",
        space!(),
        forbidden!(),
        "]*[^@.",
        space!(),
        forbidden!(),
        "])?$"
    ));
    const MAX_LENGTH: Option<usize> = Some(254);
}

/// A new password's length and characters ([`crate::domain::user::check_password`]): 12 to
/// 128 characters, something besides white space, no control characters. That it is not
/// easy to guess (rule `weak`) is the server's reading, which no schema states.
pub struct Password;

impl TextRule for Password {
    const NAME: &'static str = "string(password)";
    const PATTERN: Option<&'static str> = Some(concat!(
        r"^[^\x00-\x1f\x7f-\x9f]*[^",
        space!(),
        r"\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    ));
    const MIN_LENGTH: Option<usize> = Some(crate::domain::user::PASSWORD_MIN);
    const MAX_LENGTH: Option<usize> = Some(crate::domain::user::PASSWORD_MAX);
}

/// A local date `YYYY-MM-DD`.
pub struct IsoDate;

impl TextRule for IsoDate {
    const NAME: &'static str = "string(date)";
    const FORMAT: Option<&'static str> = Some("date");
}

/// An instant, RFC 3339.
pub struct DateTimeRule;

impl TextRule for DateTimeRule {
    const NAME: &'static str = "string(date-time)";
    const FORMAT: Option<&'static str> = Some("date-time");
}

/// The integers an [`IntOf`] may be.
pub trait IntChoices: Send + Sync + 'static {
    const NAME: &'static str;
    const VALUES: &'static [i64];
}

/// An integer from a closed list `C` (status ids, contact types), documented as an integer
/// enum and read as any integer: the handler names one outside the list in `fields`.
pub struct IntOf<C>(pub i64, PhantomData<C>);

impl<C> IntOf<C> {
    pub fn new(v: i64) -> Self {
        IntOf(v, PhantomData)
    }
}

impl<C> Clone for IntOf<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for IntOf<C> {}

impl<C> PartialEq for IntOf<C> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<C> std::fmt::Debug for IntOf<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<C: IntChoices> Type for IntOf<C> {
    const IS_REQUIRED: bool = true;
    type RawValueType = i64;
    type RawElementValueType = i64;

    fn name() -> Cow<'static, str> {
        Cow::Borrowed(C::NAME)
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            format: Some("int64"),
            enum_items: C::VALUES.iter().map(|v| Value::from(*v)).collect(),
            ..MetaSchema::new("integer")
        }))
    }

    fn as_raw_value(&self) -> Option<&i64> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a i64> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl<C: IntChoices> ParseFromJSON for IntOf<C> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        i64::parse_from_json(value)
            .map(IntOf::new)
            .map_err(ParseError::propagate)
    }
}

impl<C: IntChoices> ParseFromParameter for IntOf<C> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        i64::parse_from_parameter(value)
            .map(IntOf::new)
            .map_err(ParseError::propagate)
    }
}

impl<C: IntChoices> ToJSON for IntOf<C> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::from(self.0))
    }
}

/// A free-text filter of a list (`search`, `action`, …): any text but a NUL character,
/// which no stored text holds (PostgreSQL's text cannot), refused as the parameter's
/// problem (400 naming it) rather than failing in the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter(pub String);

impl Filter {
    pub fn into_string(self) -> String {
        self.0
    }
}

impl Deref for Filter {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl Type for Filter {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        Cow::Borrowed("string(filter)")
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            pattern: Some(r"^[^\x00]*$".to_string()),
            ..MetaSchema::new("string")
        }))
    }

    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl ParseFromParameter for Filter {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        if value.contains('\0') {
            return Err(ParseError::custom("holds a NUL character"));
        }
        Ok(Filter(value.to_string()))
    }
}

/// A list of at least one item and at most `MAX` (`minItems`, `maxItems`), read as any
/// list: the handler names an empty or too long one in `fields`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtLeastOne<T, const MAX: usize = { usize::MAX }>(pub Vec<T>);

impl<T, const MAX: usize> Deref for AtLeastOne<T, MAX> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Type, const MAX: usize> Type for AtLeastOne<T, MAX> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Vec<T>;
    type RawElementValueType = T::RawValueType;

    fn name() -> Cow<'static, str> {
        format!("list_{}(non-empty)", T::name()).into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            items: Some(Box::new(T::schema_ref())),
            min_items: Some(1),
            max_items: (MAX != usize::MAX).then_some(MAX),
            ..MetaSchema::new("array")
        }))
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Vec<T>> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.0.iter().filter_map(Type::as_raw_value))
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: ParseFromJSON, const MAX: usize> ParseFromJSON for AtLeastOne<T, MAX> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Vec::<T>::parse_from_json(value)
            .map(AtLeastOne)
            .map_err(ParseError::propagate)
    }
}

impl<T: ToJSON, const MAX: usize> ToJSON for AtLeastOne<T, MAX> {
    fn to_json(&self) -> Option<Value> {
        self.0.to_json()
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

    #[test]
    fn at_least_one_documents_its_bounds_and_reads_any_list() {
        let empty = AtLeastOne::<i64, 3>::parse_from_json(Some(Value::Array(vec![]))).unwrap();
        assert!(empty.0.is_empty() && Type::is_empty(&empty));
        assert!(AtLeastOne::<i64>::parse_from_json(Some(Value::Bool(true))).is_err());
        let MetaSchemaRef::Inline(schema) = AtLeastOne::<i64, 3>::schema_ref() else {
            panic!("an inline schema");
        };
        assert_eq!((schema.min_items, schema.max_items), (Some(1), Some(3)));
        let MetaSchemaRef::Inline(schema) = AtLeastOne::<i64>::schema_ref() else {
            panic!("an inline schema");
        };
        assert_eq!(schema.max_items, None);
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
