"""Schemathesis hooks of scripts/fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

Recordings are uploaded as audio/wav, audio/mpeg or audio/ogg (ingestRecording): bytes,
sent as they are, like application/octet-stream.
"""

import schemathesis

schemathesis.serializer.alias(["audio/wav", "audio/mpeg", "audio/ogg"], "application/octet-stream")
