# plank_abi.cmake: what the libraries promise at link time (README.md, "ABI
# policy"), included by the top-level CMakeLists.txt after plank_objects:
#  - PLANK_SOVERSION, the SONAME's version, and PLANK_OUTPUT_NAME, the
#    libraries' name (plank, or plank_NS with PLANK_NAMESPACE=NS);
#  - plank_export_listed(target namespace): the shared library exports the
#    functions of abi/plank.symbols (prefixed namespace_ when namespace is
#    not empty) and nothing else, through a version script;
#  - plank_namespaced_object(var namespace name): one relocatable object of
#    plank_objects with the internal symbols local and the public ones
#    renamed namespace_plank_x (PLANK_NAMESPACE, and the embed tests);
#  - PLANK_CAN_RENAME_OBJECTS: whether the toolchain can do the latter.
set(PLANK_ABI_DIR ${CMAKE_CURRENT_LIST_DIR})

# libplank.so.MAJOR: a new MAJOR version is the only one that may break the
# ABI. Before 1.0 every MINOR version may, so 0.x releases get 0.MINOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(PLANK_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(PLANK_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# A namespaced library has other symbols, so another name (and SONAME):
# libplank_NS.a, libplank_NS.so.
set(PLANK_OUTPUT_NAME plank)
if(PLANK_NAMESPACE)
  set(PLANK_OUTPUT_NAME plank_${PLANK_NAMESPACE})
endif()

# The committed list (scripts/update-symbols.sh writes it from plank.h).
set(PLANK_SYMBOLS_FILE ${PLANK_ABI_DIR}/plank.symbols)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PLANK_SYMBOLS_FILE})
file(STRINGS ${PLANK_SYMBOLS_FILE} PLANK_SYMBOLS REGEX "^plank_[A-Za-z0-9_]+$")

# ELF toolchains (GNU ld, gold, lld) take version scripts; objcopy and
# `cc -r` make the embeddable object.
set(PLANK_ELF_TOOLCHAIN OFF)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE AND NOT WIN32 AND NOT CYGWIN)
  set(PLANK_ELF_TOOLCHAIN ON)
endif()
set(PLANK_CAN_RENAME_OBJECTS OFF)
if(PLANK_ELF_TOOLCHAIN AND CMAKE_OBJCOPY AND CMAKE_NM)
  set(PLANK_CAN_RENAME_OBJECTS ON)
endif()

function(plank_export_listed target namespace)
  set(prefix "")
  if(namespace)
    set(prefix ${namespace}_)
  endif()
  if(NOT PLANK_ELF_TOOLCHAIN)
    return() # PLANK_API (visibility) alone decides the exports
  endif()
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
  set(text "/* Generated from abi/plank.symbols by abi/plank_abi.cmake. */\n{\n  global:\n")
  foreach(s ${PLANK_SYMBOLS})
    string(APPEND text "    ${prefix}${s};\n")
  endforeach()
  string(APPEND text "  local:\n    *;\n};\n")
  # Rewritten only when it changes, so that configuring does not relink.
  file(WRITE ${script}.tmp "${text}")
  configure_file(${script}.tmp ${script} COPYONLY)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${script}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${script})
endfunction()

function(plank_namespaced_object var namespace name)
  if(NOT PLANK_CAN_RENAME_OBJECTS)
    message(FATAL_ERROR "plank: renaming objects needs an ELF toolchain with objcopy and nm")
  endif()
  if(NOT namespace MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "plank: the namespace '${namespace}' is not a C identifier")
  endif()
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.o)
  add_custom_command(OUTPUT ${obj}
    COMMAND ${CMAKE_COMMAND} -DOUT=${obj} -DNAMESPACE=${namespace}
            "-DOBJECTS=$<TARGET_OBJECTS:plank_objects>" -DCC=${CMAKE_C_COMPILER}
            -DNM=${CMAKE_NM} -DOBJCOPY=${CMAKE_OBJCOPY} -P ${PLANK_ABI_DIR}/embed_object.cmake
    DEPENDS plank_objects $<TARGET_OBJECTS:plank_objects> ${PLANK_ABI_DIR}/embed_object.cmake
    COMMENT "plank: ${name}.o (internal symbols local, public ones ${namespace}_plank_*)"
    VERBATIM)
  set_source_files_properties(${obj} PROPERTIES GENERATED TRUE EXTERNAL_OBJECT TRUE)
  set(${var} ${obj} PARENT_SCOPE)
endfunction()
