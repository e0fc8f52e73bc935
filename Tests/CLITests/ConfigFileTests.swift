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

@Suite("tracking options, defined once")
struct TrackingOptionsTests {
    @Test("scan, batch and watch take the same tracking options, --adaptive and --no-analytics included")
    func sameOptions() throws {
        let shared = ["--adaptive", "--no-analytics", "--analytics-keep", "2", "--poll-interval", "500ms", "--strategy", "polling"]
        let batch = try BatchCommand.parse(["photos"] + shared)
        let scan = try ScanCommand.parse(["a.jpg"] + shared)
        let watch = try WatchCommand.parse([UUID().uuidString] + shared)
        for options in [batch.tracking, scan.tracking, watch.tracking] {
            let resolved = try options.resolve(with: ConfigFile())
            #expect(resolved.adaptive)
            #expect(resolved.analyticsDisabled)
            #expect(resolved.analyticsKeep == 2)
            #expect(resolved.pollInterval == .milliseconds(500))
            #expect(resolved.strategy == .polling)
        }
        let defaults = try TrackingOptions.parse([]).resolve(with: ConfigFile())
        #expect(!defaults.adaptive && !defaults.analyticsDisabled)
    }

    @Test("adaptive and analytics_keep come from the config file too; the command line wins")
    func fromConfig() throws {
        let config = try ConfigFile.parse("adaptive = true\nanalytics_keep = 7\n", path: "c.toml")
        let resolved = try TrackingOptions.parse([]).resolve(with: config)
        #expect(resolved.adaptive)
        #expect(resolved.analyticsKeep == 7)
        #expect(try TrackingOptions.parse(["--analytics-keep", "0"]).resolve(with: config).analyticsKeep == 0)
        #expect(throws: ConfigError.self) { try ConfigFile.parse("analytics_keep = -1\n", path: "c.toml") }
        #expect(throws: ConfigError.self) { try ConfigFile.parse("analytics_keep = 1.5\n", path: "c.toml") }
        #expect(throws: (any Error).self) { try TrackingOptions.parse(["--analytics-keep", "5000"]).resolve(with: ConfigFile()) }
    }
}
