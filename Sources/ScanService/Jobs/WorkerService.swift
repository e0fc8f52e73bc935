import ServiceLifecycle

/// Runs the worker pool as a lifecycle service; cancelled when the service group shuts down.
struct WorkerService: Service {
    let workers: ScanWorkers

    func run() async throws {
        await cancelWhenGracefulShutdown { await workers.run() }
    }
}
