#pragma once
/// The MPI side of scale_out.h (built with TC_ENABLE_MPI). Only
/// scale_out.cpp calls these, and only after start() returned true.
#include "scale_out.h"

namespace tc::cli::scale::mpi {

/// Starts MPI when the environment says mpirun launched us; false otherwise.
bool start(int& argc, char**& argv);
/// The exit agreement (see Session::finish), then MPI_Finalize.
int finish(int rc);
/// MPI_Finalize if finish() did not run (an early return from main).
void stop();
[[noreturn]] void abort_job(int rc);
/// The digest of this rank's job (its command line and the files it names),
/// compared in every agreement: ranks started with different jobs stop.
void set_job_digest(std::uint64_t digest);
int rank();
int size();
std::optional<Failure> first_failure(std::optional<Failure> local);
std::uint64_t total(std::uint64_t local);
Result<LineInput> open_lines(const std::string& path, const std::string& what);
Result<VerifyReport> verify(const Program& program, Reference& reference, const VerifyOptions& options);
FitReduction* fit_reduction();
bool is_remote_failure(const Diagnostic& d);
int write_ordered(const std::string& path, const std::string& text);
/// The MPI side of SharedProgress: a progress whose close() ends this
/// rank's stream (ranks > 0) or waits for every rank's end (rank 0).
std::unique_ptr<Progress> combined_progress(Progress* inner, std::uint64_t total);
void close_progress(Progress& combined);

}  // namespace tc::cli::scale::mpi
