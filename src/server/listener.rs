//! TCP listener whose connections have Nagle's algorithm off (TCP_NODELAY). poem's own
//! `TcpListener` leaves it on, which delays small HTTP/2 frames by ~40 ms (delayed ACK):
//! most of what a dashboard's many small API calls would cost.

use std::io::Result as IoResult;
use std::net::SocketAddr;

use poem::http::uri::Scheme;
use poem::listener::{Acceptor, Listener, TcpAcceptor, TcpListener};
use poem::web::{LocalAddr, RemoteAddr};
use tokio::net::TcpStream;

pub struct NoDelayListener(pub SocketAddr);

impl Listener for NoDelayListener {
    type Acceptor = NoDelayAcceptor;

    async fn into_acceptor(self) -> IoResult<NoDelayAcceptor> {
        Ok(NoDelayAcceptor(
            TcpListener::bind(self.0).into_acceptor().await?,
        ))
    }
}

pub struct NoDelayAcceptor(TcpAcceptor);

impl Acceptor for NoDelayAcceptor {
    type Io = TcpStream;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.0.local_addr()
    }

    async fn accept(&mut self) -> IoResult<(TcpStream, LocalAddr, RemoteAddr, Scheme)> {
        let (io, local, remote, scheme) = self.0.accept().await?;
        if let Err(e) = io.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        Ok((io, local, remote, scheme))
    }
}
