//! systemd: readiness (`Type=notify`), reload and the watchdog, as `sd_notify(3)` and
//! `sd_watchdog_enabled(3)` describe them, through the `sd-notify` crate. Without
//! `$NOTIFY_SOCKET` (not started by systemd) nothing is sent.
//!
//! - `READY=1` once the listener is bound and the TLS certificate loaded, `STOPPING=1` on
//!   SIGTERM, `RELOADING=1` then `READY=1` around a reload of the certificate (SIGHUP);
//! - `WATCHDOG=1` while the server really answers: with `WatchdogSec=` in the unit, every
//!   third of the interval the process sends itself `GET /healthz` through its own
//!   listener (TCP, TLS, HTTP, the router), and pings only when an answer comes (any status:
//!   a 503 for an unreachable database is still an answer, and a restart would not mend
//!   it). A process whose accept loop, runtime or handlers hang stops pinging, and systemd
//!   kills and restarts it after `WatchdogSec`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

pub use sd_notify::NotifyState;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends `states` to the service manager. Returns whether they were sent; a failure is
/// logged, never fatal.
pub fn notify(states: &[NotifyState]) -> bool {
    let Some(socket) = std::env::var_os("NOTIFY_SOCKET").filter(|s| !s.is_empty()) else {
        return false;
    };
    let sent = if socket.as_encoded_bytes().starts_with(b"@") {
        // The crate connects to a path only; an abstract socket (a container's manager)
        // is sent to here.
        let lines: Vec<String> = states.iter().map(ToString::to_string).collect();
        send_abstract(&socket, &(lines.join("\n") + "\n"))
    } else {
        sd_notify::notify(false, states)
    };
    match sent {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "cannot notify systemd");
            false
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn send_abstract(socket: &std::ffi::OsStr, text: &str) -> std::io::Result<()> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixDatagram};
    let name = &socket.as_encoded_bytes()[1..];
    let addr = SocketAddr::from_abstract_name(name)?;
    UnixDatagram::unbound()?.send_to_addr(text.as_bytes(), &addr)?;
    Ok(())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn send_abstract(_socket: &std::ffi::OsStr, _text: &str) -> std::io::Result<()> {
    Err(std::io::Error::other("abstract sockets need Linux"))
}

/// The watchdog's interval when systemd asks for pings (`WATCHDOG_USEC`, and
/// `WATCHDOG_PID` naming this process), else `None`.
pub fn watchdog_interval() -> Option<Duration> {
    let mut usec = 0;
    (sd_notify::watchdog_enabled(false, &mut usec) && usec > 0)
        .then_some(Duration::from_micros(usec))
}

/// Probes the server through `listen` every third of `interval` and pings systemd after
/// each answer; runs until aborted. `tls`: the server speaks TLS.
pub async fn watchdog(listen: SocketAddr, tls: bool, interval: Duration) {
    let every = interval / 3;
    let target = probe_target(listen);
    let connector = tls.then(|| tokio_rustls::TlsConnector::from(probe_tls()));
    tracing::info!(every_ms = every.as_millis() as u64, %target, "systemd watchdog: probing /healthz");
    let mut failing = false;
    loop {
        let started = tokio::time::Instant::now();
        match tokio::time::timeout(every, probe(target, connector.as_ref())).await {
            Ok(Ok(status)) => {
                if failing {
                    tracing::info!(status, "systemd watchdog: the server answers again");
                    failing = false;
                }
                notify(&[NotifyState::Watchdog]);
            }
            Ok(Err(e)) => {
                failing = true;
                tracing::warn!(error = %e, "systemd watchdog: the server did not answer its own probe; no ping");
            }
            Err(_) => {
                failing = true;
                tracing::warn!(
                    timeout_ms = every.as_millis() as u64,
                    "systemd watchdog: no answer to the server's own probe in time; no ping"
                );
            }
        }
        tokio::time::sleep_until(started + every).await;
    }
}

/// Where the probe connects: the listener's address, loopback for an unspecified one.
fn probe_target(listen: SocketAddr) -> SocketAddr {
    match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(Ipv4Addr::LOCALHOST.into(), listen.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(Ipv6Addr::LOCALHOST.into(), listen.port())
        }
        _ => listen,
    }
}

/// One `GET /healthz` over a new connection; the answer's status.
async fn probe(
    target: SocketAddr,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> std::io::Result<u16> {
    let tcp = tokio::net::TcpStream::connect(target).await?;
    let request = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nUser-Agent: cxwatch-watchdog\r\nConnection: close\r\n\r\n";
    match tls {
        Some(connector) => {
            let name = rustls::pki_types::ServerName::IpAddress(target.ip().into());
            let stream = connector.connect(name, tcp).await?;
            status_of(stream, request).await
        }
        None => status_of(tcp, request).await,
    }
}

async fn status_of<S>(mut stream: S, request: &[u8]) -> std::io::Result<u16>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    stream.write_all(request).await?;
    stream.flush().await?;
    let mut head = Vec::with_capacity(64);
    let mut buf = [0u8; 64];
    while head.len() < 12 {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    // "HTTP/1.1 200 ..."
    std::str::from_utf8(head.get(9..12).unwrap_or_default())
        .ok()
        .filter(|_| head.starts_with(b"HTTP/1."))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no HTTP status line in the answer"))
}

/// The probe's TLS client: it talks to this very process over its own listener, so any
/// certificate is taken (signatures are still checked); nothing secret is sent.
fn probe_tls() -> Arc<rustls::ClientConfig> {
    super::tls::install_crypto_provider();
    Arc::new(crate::trust::any_certificate_config())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn abstract_socket_names_get_the_datagram() {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("cxwatch-notify-test-{}", std::process::id());
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let listener = std::os::unix::net::UnixDatagram::bind_addr(&addr).unwrap();
        send_abstract(std::ffi::OsStr::new(&format!("@{name}")), "READY=1\n").unwrap();
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1\n");
    }

    #[test]
    fn the_probe_goes_to_loopback_for_an_unspecified_address() {
        let v4: SocketAddr = "0.0.0.0:8443".parse().unwrap();
        assert_eq!(probe_target(v4), "127.0.0.1:8443".parse().unwrap());
        let v6: SocketAddr = "[::]:8443".parse().unwrap();
        assert_eq!(probe_target(v6), "[::1]:8443".parse().unwrap());
        let given: SocketAddr = "10.1.2.3:8443".parse().unwrap();
        assert_eq!(probe_target(given), given);
    }
}
