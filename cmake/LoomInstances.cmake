# loom_instances(<name> HEADER <header> INSTANCES <args>... [SM90A])
#
# The one mechanism by which a kernel's launcher template is instantiated: one generated translation
# unit per instance, so that they compile in parallel, from a list a human edits in
# kernels/CMakeLists.txt. <header> (relative to the source root) defines the template and the macro
# LOOM_<NAME>_INSTANTIATE(<args>), the explicit instantiation of one instance, and includes
# "kernels/<name>_instances.inc", written here:
#
#   #define LOOM_<NAME>_INSTANCES(X) X(<args>) X(<args>) ...
#
# from which the header declares every instance extern and the host code dispatches to them. Each
# <args> is the instance's template arguments as C++ text, e.g. "0, true, false". The sources are
# appended to LOOM_<NAME>_SOURCES in the caller's scope; SM90A marks them as sm_90a-only code (the
# caller builds them for that architecture alone).
#
# The generated files go under LOOM_GENERATED_DIR (an include directory of loom_kernel_headers);
# file(CONFIGURE) rewrites a file only when its text changes, so reconfiguring rebuilds nothing.
function(loom_instances name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SM90A" "HEADER" "INSTANCES")
  if(NOT arg_HEADER OR NOT arg_INSTANCES)
    message(FATAL_ERROR "loom_instances(${name}): HEADER and INSTANCES are required")
  endif()
  string(TOUPPER "${name}" upper)
  set(list "")
  set(sources "")
  foreach(inst IN LISTS arg_INSTANCES)
    string(APPEND list " X(${inst})")
    string(REGEX REPLACE "[^A-Za-z0-9]+" "_" stem "${inst}")
    set(suffix ".cu")
    if(arg_SM90A)
      set(suffix ".sm90a.cu")
    endif()
    set(src "${LOOM_GENERATED_DIR}/kernels/${name}_${stem}${suffix}")
    file(CONFIGURE OUTPUT "${src}" CONTENT "// Generated from kernels/CMakeLists.txt's loom_instances(${name} ...); do not edit.
#include \"${arg_HEADER}\"

LOOM_${upper}_INSTANTIATE(${inst})
")
    list(APPEND sources "${src}")
  endforeach()
  file(CONFIGURE OUTPUT "${LOOM_GENERATED_DIR}/kernels/${name}_instances.inc" CONTENT
       "// Generated from kernels/CMakeLists.txt's loom_instances(${name} ...); do not edit.
#define LOOM_${upper}_INSTANCES(X)${list}
")
  set(LOOM_${upper}_SOURCES ${sources} PARENT_SCOPE)
endfunction()
