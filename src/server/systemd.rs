//! systemd readiness (`Type=notify`): `READY=1` and `STOPPING=1` sent as a datagram to
//! `$NOTIFY_SOCKET` when it is set, as `sd_notify(3)` does. Without it nothing happens.

/// Sends `state` (e.g. `READY=1`) to the service manager. Returns whether it was sent;
/// a failure is logged, never fatal.
pub fn notify(state: &str) -> bool {
    let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
        return false;
    };
    match send(&socket, state) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "cannot notify systemd");
            false
        }
    }
}

#[cfg(unix)]
fn send(socket: &std::ffi::OsStr, state: &str) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::net::UnixDatagram;

    let sock = UnixDatagram::unbound()?;
    let bytes = socket.as_bytes();
    if let Some(name) = bytes.strip_prefix(b"@") {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::os::linux::net::SocketAddrExt;
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
            sock.send_to_addr(state.as_bytes(), &addr)?;
            return Ok(());
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            let _ = name;
            return Err(std::io::Error::other("abstract sockets need Linux"));
        }
    }
    sock.send_to(state.as_bytes(), std::path::Path::new(socket))?;
    Ok(())
}

#[cfg(not(unix))]
fn send(_socket: &std::ffi::OsStr, _state: &str) -> std::io::Result<()> {
    Err(std::io::Error::other("NOTIFY_SOCKET needs a Unix system"))
}

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn sends_a_datagram_to_a_path_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify.sock");
        let listener = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
        super::send(path.as_os_str(), "READY=1").unwrap();
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1");
    }
}
