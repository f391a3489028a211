//! The address a request comes from. It is the connection's peer, unless that peer is a proxy
//! the site trusts (`server.trusted_proxies`: a TLS-terminating reverse proxy, a load balancer,
//! a cxwatch in proxy mode). Then it is the address that proxy says it served, read from
//! `X-Forwarded-For` from the right: the first address that is not itself a trusted proxy.
//! Entries to the left of it are the client's own word and are never believed; an entry that is
//! not an address stops the walk at the hop that wrote it. The sign-in throttle and the audit
//! log use it.

use std::net::IpAddr;

use ipnet::IpNet;

/// A `trusted_proxies` entry: an address (`10.0.0.5`, `::1`) or a network (`10.0.0.0/8`).
pub fn parse_trusted(entry: &str) -> Result<IpNet, String> {
    let entry = entry.trim();
    entry
        .parse::<IpNet>()
        .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("'{entry}' is neither an IP address nor a network such as 10.0.0.0/8"))
}

fn trusted(ip: IpAddr, proxies: &[IpNet]) -> bool {
    let ip = ip.to_canonical();
    proxies.iter().any(|net| net.contains(&ip))
}

/// One `X-Forwarded-For` entry: `192.0.2.7`, `192.0.2.7:5123`, `2001:db8::1` or
/// `[2001:db8::1]:443`.
fn entry_ip(entry: &str) -> Option<IpAddr> {
    let e = entry.trim();
    if let Ok(ip) = e.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Some(rest) = e.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (host, port) = e.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

/// The client's address: `peer` unless it is a trusted proxy, then the rightmost address of
/// `forwarded_for` (the `X-Forwarded-For` header lines, in order) that is not a trusted proxy.
pub fn client_ip(peer: IpAddr, forwarded_for: &[&str], proxies: &[IpNet]) -> IpAddr {
    let mut client = peer;
    if !trusted(client, proxies) {
        return client;
    }
    let hops: Vec<&str> = forwarded_for
        .iter()
        .flat_map(|line| line.split(','))
        .collect();
    for hop in hops.iter().rev() {
        let Some(ip) = entry_ip(hop) else {
            return client;
        };
        client = ip;
        if !trusted(ip, proxies) {
            return client;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|e| parse_trusted(e).unwrap()).collect()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_says() {
        let proxies = nets(&["10.0.0.0/8"]);
        let got = client_ip(ip("203.0.113.9"), &["198.51.100.1"], &proxies);
        assert_eq!(got, ip("203.0.113.9"));
        // Nothing trusted at all: the header is never read.
        assert_eq!(
            client_ip(ip("10.0.0.5"), &["198.51.100.1"], &[]),
            ip("10.0.0.5")
        );
    }

    #[test]
    fn a_trusted_proxy_names_the_client_read_from_the_right() {
        let proxies = nets(&["10.0.0.5", "10.1.0.0/16"]);
        // The client's own claim (left) is not believed: the proxy appended what it saw.
        let xff = ["6.6.6.6, 198.51.100.7"];
        assert_eq!(
            client_ip(ip("10.0.0.5"), &xff, &proxies),
            ip("198.51.100.7")
        );
        // Two proxies in a row, the header over two lines.
        let xff = ["198.51.100.7", "10.1.2.3"];
        assert_eq!(
            client_ip(ip("10.0.0.5"), &xff, &proxies),
            ip("198.51.100.7")
        );
        // Ports and brackets, as some proxies write them.
        let xff = ["[2001:db8::7]:443"];
        assert_eq!(client_ip(ip("10.0.0.5"), &xff, &proxies), ip("2001:db8::7"));
        let xff = ["198.51.100.7:5123"];
        assert_eq!(
            client_ip(ip("10.0.0.5"), &xff, &proxies),
            ip("198.51.100.7")
        );
    }

    #[test]
    fn a_trusted_proxy_without_a_header_or_with_garbage_is_the_client() {
        let proxies = nets(&["10.0.0.5"]);
        assert_eq!(client_ip(ip("10.0.0.5"), &[], &proxies), ip("10.0.0.5"));
        assert_eq!(
            client_ip(ip("10.0.0.5"), &["unknown"], &proxies),
            ip("10.0.0.5")
        );
        // Garbage left of a good hop does not hide it.
        assert_eq!(
            client_ip(ip("10.0.0.5"), &["nonsense, 198.51.100.7"], &proxies),
            ip("198.51.100.7")
        );
        // Only trusted hops: the leftmost one said it.
        assert_eq!(
            client_ip(ip("10.0.0.5"), &["10.0.0.5"], &proxies),
            ip("10.0.0.5")
        );
    }

    #[test]
    fn an_ipv4_mapped_peer_matches_an_ipv4_network() {
        let proxies = nets(&["127.0.0.0/8"]);
        let got = client_ip(ip("::ffff:127.0.0.1"), &["198.51.100.7"], &proxies);
        assert_eq!(got, ip("198.51.100.7"));
    }

    #[test]
    fn entries_are_addresses_or_networks() {
        assert!(parse_trusted("10.0.0.0/8").is_ok());
        assert!(parse_trusted(" ::1 ").is_ok());
        assert!(parse_trusted("fd00::/8").is_ok());
        let err = parse_trusted("proxy.example").unwrap_err();
        assert!(err.contains("'proxy.example' is neither"), "{err}");
        assert!(parse_trusted("10.0.0.0/33").is_err());
    }
}
