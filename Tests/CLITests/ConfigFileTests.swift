import ArgumentParser
import Foundation
import ScanClient
import Testing

@testable import bookscan

@Suite("config.toml")
struct ConfigFileTests {
    @Test("reads the flat keys, comments and quoting")
    func parses() throws {
        let text = """
            # bookscan defaults
            server = "https://scan.example.com"   # the team's service
            token_file = '~/.config/bookscan/token'
            strategy = "polling"
            adaptive = true
            poll_interval = "500ms"
            timeout = 120
            """
        let config = try ConfigFile.parse(text, path: "config.toml")
        #expect(config.server == "https://scan.example.com")
        #expect(config.tokenFile == "~/.config/bookscan/token")
        #expect(config.strategy == "polling")
        #expect(config.adaptive == true)
        #expect(config.pollInterval == "500ms")
        #expect(config.timeout == "120.0")
    }

    @Test("errors name the file and the line")
    func errors() {
        #expect(throws: ConfigError.self) { try ConfigFile.parse("colour = \"blue\"", path: "c.toml") }
        do {
            _ = try ConfigFile.parse("server = \"x\"\nadaptive = maybe\n", path: "c.toml")
            Issue.record("no error")
        } catch let error as ConfigError {
            #expect(error.description.hasPrefix("c.toml:2:"))
        } catch {
            Issue.record("wrong error \(error)")
        }
    }

    @Test("command line beats the file; the file beats the defaults")
    func precedence() throws {
        let config = try ConfigFile.parse("strategy = \"polling\"\npoll_interval = \"3s\"\ntimeout = \"1m\"\n", path: "c.toml")
        let fromFile = try TrackingOptions.parse([]).resolve(with: config)
        #expect(fromFile.strategy == .polling)
        #expect(fromFile.pollInterval == .seconds(3))
        #expect(fromFile.timeout == .seconds(60))
        let fromCommandLine = try TrackingOptions.parse(["--strategy", "websocket", "--poll-interval", "1s"]).resolve(with: config)
        #expect(fromCommandLine.strategy == .websocket)
        #expect(fromCommandLine.pollInterval == .seconds(1))
        let defaults = try TrackingOptions.parse([]).resolve(with: ConfigFile())
        #expect(defaults.strategy == .auto)
        #expect(defaults.timeout == .seconds(900))
    }
}
