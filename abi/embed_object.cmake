# embed_object.cmake: one relocatable object of the whole library for
# embedding, run at build time (cmake -P) by plank_namespaced_object() in
# abi/plank_abi.cmake:
#   cmake -DOUT=x.o -DNAMESPACE=NS "-DOBJECTS=a.o;b.o;..." -DCC=cc -DNM=nm -DOBJCOPY=objcopy -P embed_object.cmake
#
# 1. `cc -r` joins the objects (compiled -fvisibility=hidden) into one;
# 2. objcopy --localize-hidden makes every hidden symbol local: the internal
#    pk_* functions and tables can then clash with nothing outside the object;
# 3. objcopy --redefine-syms renames each global symbol still defined, the
#    functions plank.h declares with PLANK_API, from plank_x to NS_plank_x,
#    the name plank.h's macros give plank_x under PLANK_NAMESPACE=NS. The
#    names come from the object, not from abi/plank.symbols, so that a copy
#    still links while the list is stale or something else escapes hidden
#    visibility (NS_ then marks it; ctest abi_symbols and
#    embed_archives_local name it).
foreach(v OUT NAMESPACE OBJECTS CC NM OBJCOPY)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "embed_object.cmake: -D${v}=... is required")
  endif()
endforeach()

set(joined ${OUT}.joined.o)
set(localized ${OUT}.local.o)
set(map ${OUT}.rename)
execute_process(COMMAND ${CC} -r -nostdlib -o ${joined} ${OBJECTS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed_object.cmake: ${CC} -r failed (${rc})")
endif()
execute_process(COMMAND ${OBJCOPY} --localize-hidden ${joined} ${localized} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed_object.cmake: ${OBJCOPY} --localize-hidden failed (${rc})")
endif()

# What is still global and defined: "VALUE TYPE NAME" lines.
execute_process(COMMAND ${NM} -g --defined-only ${localized}
  OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed_object.cmake: ${NM} failed (${rc})")
endif()
string(REGEX MATCHALL "[ \t][A-Za-z_][A-Za-z0-9_.]*\n" names "${symbols}\n")
set(text "")
foreach(n ${names})
  string(STRIP "${n}" n)
  string(APPEND text "${n} ${NAMESPACE}_${n}\n")
endforeach()
if(NOT text MATCHES "(^|\n)plank_")
  message(FATAL_ERROR "embed_object.cmake: no plank_ function is defined in ${OBJECTS}")
endif()
file(WRITE ${map} "${text}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${map} ${localized} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed_object.cmake: ${OBJCOPY} --redefine-syms failed (${rc})")
endif()
file(REMOVE ${joined} ${localized} ${map})
